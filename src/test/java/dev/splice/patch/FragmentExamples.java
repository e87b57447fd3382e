package dev.splice.patch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The ready fragments of {@code examples/}. */
final class FragmentExamples {
    private FragmentExamples() {}

    static String read(String name) {
        try {
            return Files.readString(Path.of("examples", name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
