package dev.splice.base;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Writes output files so that a failed run never leaves a half-written file: the content goes to a
 * temporary file in the target directory, which is then renamed into place. The one place in
 * Splice that writes outputs.
 */
public final class AtomicFiles {
    /** Produces a file's content. */
    @FunctionalInterface
    public interface Body {
        /**
         * Writes the content.
         *
         * @param out where to write it (buffered; closed by the caller)
         * @throws IOException when writing fails
         */
        void write(OutputStream out) throws IOException;
    }

    private AtomicFiles() {}

    /**
     * Writes {@code bytes} to {@code target} atomically.
     *
     * @param target the output file
     * @param bytes its content
     */
    public static void write(Path target, byte[] bytes) {
        write(target, out -> out.write(bytes));
    }

    /**
     * Writes {@code text} as UTF-8 to {@code target} atomically.
     *
     * @param target the output file
     * @param text its content
     */
    public static void write(Path target, String text) {
        write(target, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes {@code body}'s output to {@code target} atomically. A device or pipe (such as
     * {@code -o /dev/null}) has nothing to replace and is written through. Failures become a
     * {@link BadInputException} that names the file.
     *
     * @param target the output file
     * @param body what writes its content
     */
    public static void write(Path target, Body body) {
        write(target, body, false);
    }

    /**
     * Writes an executable file atomically, as {@link #write(Path, byte[])} does, with mode 0755
     * masked by the process's umask (as a linker's output gets).
     *
     * @param target the output file
     * @param bytes its content
     */
    public static void writeExecutable(Path target, byte[] bytes) {
        write(target, out -> out.write(bytes), true);
    }

    private static void write(Path target, Body body, boolean executable) {
        if (OutputPaths.isStandardOutput(target)) {
            writeOrPrint(null, body);
            return;
        }
        Path absolute = target.toAbsolutePath();
        try {
            if (Files.exists(absolute) && !Files.isRegularFile(absolute) && !Files.isDirectory(absolute)) {
                try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(absolute), 1 << 16)) {
                    body.write(out);
                }
                return;
            }
            Path dir = absolute.getParent();
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, "." + absolute.getFileName() + ".", ".tmp");
            try {
                try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
                    body.write(out);
                }
                setPermissions(temp, executable);
                try {
                    Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new BadInputException(target + ": cannot write: " + e.getMessage(), e);
        }
    }

    /**
     * Writes to the file, or to standard output when {@code target} is null or {@code -}.
     *
     * @param target the output file, or null or {@code -} for standard output
     * @param body what writes the content
     */
    public static void writeOrPrint(Path target, Body body) {
        if (target != null && !OutputPaths.isStandardOutput(target)) {
            write(target, body);
            return;
        }
        try {
            OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
            body.write(out);
            out.flush();
        } catch (IOException e) {
            throw new BadInputException("standard output: cannot write: " + e.getMessage(), e);
        }
    }

    /**
     * createTempFile makes a private file; outputs get what a plain {@code open(2)} would give them:
     * 0666 (0777 for executables) without the umask's bits.
     */
    private static void setPermissions(Path file, boolean executable) throws IOException {
        int mode = (executable ? 0777 : 0666) & ~umask();
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ ... OTHERS_EXECUTE: bits 8 .. 0
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << (bits.length - 1 - i))) != 0) {
                permissions.add(bits[i]);
            }
        }
        try {
            Files.setPosixFilePermissions(file, permissions);
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the default permissions stay.
        }
    }

    /** The process's umask, which Java does not expose: Linux reports it in /proc/self/status (022 elsewhere). */
    private static int umask() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Umask:")) {
                    return Integer.parseInt(line.substring(6).trim(), 8);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through
        }
        return 022;
    }
}
