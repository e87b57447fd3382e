package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Read-then-write identity: the file itself, and the editor re-serialising all three header tables. */
class ElfRoundTripTest {
    @TempDir Path tmp;

    static Stream<Path> files() {
        return ElfSamples.all().stream();
    }

    @ParameterizedTest
    @MethodSource("files")
    void unmodifiedFileIsWrittenBackByteForByte(Path file) throws IOException {
        byte[] input = Files.readAllBytes(file);
        ElfFile elf = ElfFile.read(file);
        assertArrayEquals(input, elf.toBytes());
        Path out = tmp.resolve("out");
        elf.write(out);
        assertArrayEquals(input, Files.readAllBytes(out));
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(1, left.count(), "no temporary file is left behind");
        }
    }

    @ParameterizedTest
    @MethodSource("files")
    void editorWithoutEditsReserialisesIdenticalBytes(Path file) throws IOException {
        byte[] input = Files.readAllBytes(file);
        ElfEditor editor = ElfFile.read(file).edit();
        // The editor clears and rewrites the ELF header, program and section header tables from its model.
        assertArrayEquals(input, editor.toBytes());
        // Replacing a section's bytes with themselves writes them in place: still identical.
        for (Section s : editor.sections()) {
            if (s.fileSize() > 0) {
                editor.setContents(s.index(), editor.contents(s.index()));
            }
        }
        assertArrayEquals(input, editor.toBytes());
    }
}
