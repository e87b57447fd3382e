package dev.splice.cli;

import dev.splice.profile.ProfileRecorder;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code splice profile record} without picocli: the JVM's start before QEMU runs is on the wall
 * clock of every recording, and picocli's model of the command (its reflection over the options)
 * was most of what ran between {@code main} and QEMU's start. This parser takes only the plain
 * forms of the command's few options; anything else (help, an unknown or repeated option, a value
 * that looks like an option, an {@code @file}, a second {@code --}, a bad {@code --format}) goes
 * to picocli as before, so every answer picocli gives is still picocli's.
 * {@code ProfileRecordFastPathTest} checks that picocli parses every accepted command line to the
 * same values.
 */
final class ProfileRecordFastPath {
    private ProfileRecordFastPath() {}

    /**
     * A parsed command line.
     *
     * @param output {@code -o}, or null
     * @param format {@code --format}
     * @param input {@code --input}, or null
     * @param quiet {@code -q}
     * @param binary the program
     * @param args its arguments
     */
    record Invocation(Path output, ProfileRecorder.Format format, Path input, boolean quiet, Path binary, List<String> args) {}

    /**
     * Runs {@code profile record} when the command line is one this parser takes.
     *
     * @param args the whole command line
     * @return the exit status, or empty when picocli must parse the command line
     */
    static OptionalInt run(String... args) {
        Optional<Invocation> parsed = parse(args);
        if (parsed.isEmpty()) {
            return OptionalInt.empty();
        }
        Invocation c = parsed.get();
        PrintWriter err = new PrintWriter(System.err, true);
        try {
            return OptionalInt.of(ProfileRecordCommand.record(c.binary(), c.args(), c.output(), c.format(), c.input(),
                    c.quiet(), err));
        } catch (RuntimeException e) {
            // Main decides --debug the same way: anywhere on the command line.
            return OptionalInt.of(Main.failed(e, err, Arrays.asList(args).contains("--debug")));
        } finally {
            err.flush();
        }
    }

    /**
     * The command line's values, when it is {@code profile record} in a form this parser takes.
     *
     * @param args the whole command line
     * @return the values, or empty for picocli
     */
    static Optional<Invocation> parse(String... args) {
        if (args.length < 3 || !args[0].equals("profile") || !args[1].equals("record")) {
            return Optional.empty();
        }
        for (String a : args) {
            if (a.startsWith("@")) {
                return Optional.empty(); // picocli's argument files
            }
        }
        String output = null, format = null, input = null;
        Set<String> seen = new HashSet<>();
        int i = 2;
        for (; i < args.length && args[i].startsWith("-"); i++) {
            String a = args[i];
            if (a.equals("--")) {
                i++;
                break;
            }
            int eq = a.indexOf('=');
            String name = a.startsWith("--") && eq > 0 ? a.substring(0, eq) : a;
            String key = switch (name) {
                case "-o", "--output" -> "output";
                case "--format", "--input" -> name;
                case "-q", "--quiet" -> "quiet";
                case "--debug" -> "debug";
                default -> null;
            };
            if (key == null || !seen.add(key)) {
                return Optional.empty();
            }
            if (key.equals("quiet") || key.equals("debug")) {
                if (eq > 0) {
                    return Optional.empty();
                }
                continue;
            }
            String value;
            if (eq > 0 && name.startsWith("--")) {
                value = a.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                return Optional.empty();
            }
            if (value.isEmpty() || value.startsWith("-")) {
                return Optional.empty();
            }
            switch (key) {
                case "output" -> output = value;
                case "--format" -> format = value;
                default -> input = value;
            }
        }
        if (i >= args.length || args[i].isEmpty()) {
            return Optional.empty();
        }
        List<String> programArgs = List.of(args).subList(i + 1, args.length);
        if (programArgs.contains("--")) {
            return Optional.empty();
        }
        ProfileRecorder.Format f = ProfileRecordCommand.format(format == null ? "fdata" : format);
        if (f == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Invocation(output == null ? null : Path.of(output), f,
                    input == null ? null : Path.of(input), seen.contains("quiet"), Path.of(args[i]), programArgs));
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }
}
