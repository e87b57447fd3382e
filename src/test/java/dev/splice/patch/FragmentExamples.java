package dev.splice.patch;

import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/** The ready fragments of {@code examples/}. */
final class FragmentExamples {
    private FragmentExamples() {}

    static String read(String name) {
        try {
            return Files.readString(TestPrograms.root().resolve("examples").resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
