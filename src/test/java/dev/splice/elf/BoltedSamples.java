package dev.splice.elf;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Files rewritten by llvm-bolt-22 with --enable-bat: new segments, a moved program header table
 * and a .note.bolt_bat. Built once per test JVM into a temporary directory.
 */
public final class BoltedSamples {
    private static List<Path> files;

    private BoltedSamples() {}

    public static synchronized List<Path> all() {
        if (files == null) {
            try {
                Path dir = Files.createTempDirectory("splice-bolted");
                dir.toFile().deleteOnExit();
                files = List.of(bolt(TestPrograms.x86_64("loops"), dir.resolve("loops.x86_64.bolt")),
                        bolt(TestPrograms.rv64("loops.relocs"), dir.resolve("loops.rv64.bolt")));
                for (Path f : files) {
                    f.toFile().deleteOnExit();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    private static Path bolt(Path input, Path output) {
        Tools.run(List.of("llvm-bolt-22", input.toString(), "-o", output.toString(), "--enable-bat"), null, 300)
                .checked("llvm-bolt-22 " + input);
        return output;
    }
}
