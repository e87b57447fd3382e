package dev.splice.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code --progress} and {@code --no-progress}, accepted by every command: progress bars are drawn
 * on standard error only when it is a terminal, unless one of these says otherwise.
 */
final class Progress {
    /** The choice on the command line: null when neither option was given. */
    private static volatile Boolean forced;

    @Option(names = "--progress", scope = ScopeType.INHERIT, description = "Draw progress bars even when standard error is not a terminal.")
    void progress(boolean on) {
        forced = Boolean.TRUE;
    }

    @Option(names = "--no-progress", scope = ScopeType.INHERIT, description = "Never draw progress bars.")
    void noProgress(boolean on) {
        forced = Boolean.FALSE;
    }

    /** Whether progress is drawn in this run. */
    static boolean shown() {
        Boolean f = forced;
        return f != null ? f : standardErrorIsTerminal();
    }

    /** Resets the choice (Main runs several command lines in one JVM in the tests). */
    static void reset() {
        forced = null;
    }

    /** Java 17 cannot ask isatty(2); Linux names the terminal behind file descriptor 2. */
    private static boolean standardErrorIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
