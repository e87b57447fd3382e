package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Truncated and forged ELF files are refused with the file name, an offset and a reason. */
class ElfMalformedTest {
    static Stream<Path> small() {
        return Stream.of(TestPrograms.rv64("entries"), TestPrograms.rv64("loops"), TestPrograms.x86_64("loops"),
                Path.of("/bin/ls"));
    }

    @ParameterizedTest
    @MethodSource("small")
    void everyTruncationIsRefused(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ElfFile elf = ElfFile.parse(bytes, "whole");
        // The section header table ends the file, so every proper prefix loses part of it.
        assertEquals(bytes.length, elf.header().shoff() + (long) elf.sections().size() * Section.HEADER_SIZE);
        TreeSet<Integer> lengths = new TreeSet<>();
        for (int i = 0; i <= 256; i++) {
            lengths.add(i);
        }
        for (int i = 0; i < 400; i++) {
            lengths.add((int) ((long) bytes.length * i / 400));
        }
        for (Section s : elf.sections()) {
            for (long at : new long[] {s.offset(), s.offset() + 1, s.offset() + s.fileSize() - 1, s.offset() + s.fileSize()}) {
                lengths.add((int) Math.max(0, Math.min(bytes.length - 1, at)));
            }
        }
        for (int i = 1; i <= 64; i++) {
            lengths.add(bytes.length - i);
        }
        lengths.removeIf(n -> n < 0 || n >= bytes.length);
        for (int n : lengths) {
            ElfFormatException e = Exercise.run(Arrays.copyOf(bytes, n), "cut" + n);
            assertNotNull(e, "a truncation to " + n + " bytes was accepted");
        }
    }

    private static byte[] loops() throws IOException {
        return Files.readAllBytes(TestPrograms.rv64("loops"));
    }

    /** Applies a forgery to a copy of the loops program and returns the refusal. */
    private static ElfFormatException forged(Consumer<ByteBuffer> forge) throws IOException {
        byte[] bytes = loops();
        forge.accept(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
        ElfFormatException e = Exercise.run(bytes, "forged");
        assertNotNull(e, "the forged file was accepted");
        return e;
    }

    private static ElfFile loopsElf() throws IOException {
        return ElfFile.parse(loops(), "loops");
    }

    private static int sectionHeader(String name) throws IOException {
        ElfFile elf = loopsElf();
        return (int) (elf.header().shoff() + (long) elf.section(name).orElseThrow().index() * Section.HEADER_SIZE);
    }

    @Test
    void identificationProblemsAreExplained() throws IOException {
        assertTrue(forged(b -> b.put(0, (byte) 0x7e)).reason().contains("not an ELF file"));
        assertTrue(forged(b -> b.put(4, (byte) 1)).reason().contains("32-bit"));
        assertTrue(forged(b -> b.put(5, (byte) 2)).reason().contains("big-endian"));
        assertEquals(52, forged(b -> b.putShort(52, (short) 52)).offset());
    }

    @Test
    void forgedCountsAndTableOffsetsAreRefused() throws IOException {
        ElfFormatException huge = forged(b -> b.putShort(60, (short) 0xfeff));
        assertEquals(60, huge.offset());
        assertTrue(huge.reason().contains("past the end"), huge.reason());
        assertEquals(40, forged(b -> b.putLong(40, -64)).offset());
        assertTrue(forged(b -> b.putLong(40, 16)).reason().contains("overlaps the ELF header"));
        assertTrue(forged(b -> b.putLong(32, 0)).reason().contains("overlaps the ELF header"));
        assertEquals(32, forged(b -> b.putShort(56, (short) 0xfff0)).offset());
        assertEquals(58, forged(b -> b.putShort(58, (short) 40)).offset());
        assertEquals(54, forged(b -> b.putShort(54, (short) 32)).offset());
        // Extended numbering with a forged count in section 0's sh_size: no allocation of that size.
        ElfFormatException extended = forged(b -> {
            b.putShort(60, (short) 0);
            b.putLong((int) b.getLong(40) + 32, 1L << 40);
        });
        assertTrue(extended.reason().contains("past the end"), extended.reason());
        ElfFormatException overlap = forged(b -> b.putLong(32, b.getLong(40)));
        assertTrue(overlap.reason().contains("overlaps the section header table"), overlap.reason());
    }

    @Test
    void forgedSectionFieldsAreRefused() throws IOException {
        int text = sectionHeader(".text");
        int symtab = sectionHeader(".symtab");
        ElfFormatException size = forged(b -> b.putLong(text + 32, 1L << 62));
        assertEquals(text + 24, size.offset());
        ElfFormatException offset = forged(b -> b.putLong(text + 24, -8));
        assertEquals(text + 24, offset.offset());
        ElfFormatException link = forged(b -> b.putInt(text + 40, 500));
        assertEquals(text + 40, link.offset());
        ElfFormatException name = forged(b -> b.putInt(text, 1 << 30));
        assertTrue(name.reason().contains("string index"), name.reason());
        assertEquals(text, name.offset());
        ElfFormatException entsize = forged(b -> b.putLong(symtab + 56, 16));
        assertEquals(symtab + 56, entsize.offset());
        assertTrue(forged(b -> b.putLong(symtab + 32, b.getLong(symtab + 32) - 5)).reason().contains("multiple"));
        ElfFormatException strtab = forged(b -> b.putInt(symtab + 40, 1));
        assertTrue(strtab.reason().contains("expected a string table"), strtab.reason());
        ElfFormatException locals = forged(b -> b.putInt(symtab + 44, 1 << 30));
        assertEquals(symtab + 44, locals.offset());
        ElfFormatException headerOverlap = forged(b -> b.putLong(text + 24, 8));
        assertTrue(headerOverlap.reason().contains("overlaps the ELF header"), headerOverlap.reason());
        ElfFormatException align = forged(b -> b.putLong(text + 48, 3));
        assertEquals(text + 48, align.offset());
    }

    @Test
    void forgedEntriesAreRefusedWhenParsed() throws IOException {
        ElfFile elf = loopsElf();
        Section symtab = elf.section(".symtab").orElseThrow();
        int firstSymbol = (int) symtab.offset() + Symbol.ENTRY_SIZE * 5;
        ElfFormatException name = forged(b -> b.putInt(firstSymbol, -2));
        assertEquals(firstSymbol, name.offset());
        ElfFormatException shndx = forged(b -> b.putShort(firstSymbol + 6, (short) 0x1234));
        assertEquals(firstSymbol + 6, shndx.offset());
        // An unterminated string: the last byte of .strtab.
        Section strtab = elf.sections().get(symtab.link());
        ElfFormatException unterminated = forged(b -> {
            b.putInt(firstSymbol, (int) strtab.size() - 1);
            b.put((int) (strtab.offset() + strtab.size() - 1), (byte) 'x');
        });
        assertTrue(unterminated.reason().contains("not NUL-terminated"), unterminated.reason());
        Section note = elf.section(".note.gnu.build-id").orElseThrow();
        ElfFormatException descriptor = forged(b -> b.putInt((int) note.offset() + 4, 0x7fffffff));
        assertEquals(note.offset(), descriptor.offset());
        ElfFormatException noteHeader = forged(b -> b.putInt((int) note.offset(), 0x1000));
        assertTrue(noteHeader.reason().contains("extends past"), noteHeader.reason());
    }

    @Test
    void forgedRelocationsAreRefused() throws IOException {
        byte[] bytes = Files.readAllBytes(TestPrograms.rv64("loops.relocs"));
        ElfFile elf = ElfFile.parse(bytes, "relocs");
        Section rela = elf.section(".rela.text").orElseThrow();
        int at = (int) rela.offset() + 3 * Relocation.ENTRY_SIZE + 12;
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, 0x7ffffff0);
        ElfFormatException e = Exercise.run(bytes, "relocs");
        assertNotNull(e);
        assertEquals(at - 4, e.offset());
        assertTrue(e.reason().contains("refers to symbol"), e.reason());
    }

    @Test
    void missingFilesAndDirectoriesAreBadInput(@org.junit.jupiter.api.io.TempDir Path tmp) {
        BadInputException missing = assertThrows(BadInputException.class, () -> ElfFile.read(tmp.resolve("nope")));
        assertTrue(missing.getMessage().contains("nope") && missing.getMessage().contains("no such file"));
        assertThrows(BadInputException.class, () -> ElfFile.read(tmp));
        BadInputException device = assertThrows(BadInputException.class, () -> ElfFile.read(Path.of("/dev/zero")));
        assertTrue(device.getMessage().contains("not a regular file"), device.getMessage());
    }

    @Test
    void emptyAndTinyInputsAreRefused() {
        assertNotNull(Exercise.run(new byte[0], "empty"));
        assertNotNull(Exercise.run(new byte[] {0x7f, 'E', 'L', 'F'}, "magic"));
    }

    @Test
    void untouchedFileIsAccepted() throws IOException {
        assertNull(Exercise.run(loops(), "loops"));
    }
}
