package dev.splice.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Writes an output file through a temporary file in the same directory and a rename. */
final class AtomicOutput {
    @FunctionalInterface
    interface Body {
        void write(OutputStream out) throws IOException;
    }

    private AtomicOutput() {}

    static void write(Path target, Body body) throws IOException {
        Path absolute = target.toAbsolutePath();
        if (Files.exists(absolute) && !Files.isRegularFile(absolute) && !Files.isDirectory(absolute)) {
            // A device or pipe (-o /dev/null): nothing to replace atomically, write through.
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
            try {
                Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Writes to the file, or to standard output when {@code target} is null. */
    static void writeOrPrint(Path target, Body body) throws IOException {
        if (target != null) {
            write(target, body);
        } else {
            OutputStream out = new BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16);
            body.write(out);
            out.flush();
        }
    }
}
