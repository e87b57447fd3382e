package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * Forged inputs to {@code patch --insert-at-entries} the fuzzer found (issue 15): each threw an
 * IllegalStateException or IndexOutOfBoundsException (exit 3, "internal error") from the editor,
 * the function decoder or the BAT builder; each is now a located refusal (exit 2).
 */
class PatchHostileInputTest {
    private static byte[] program(String name) throws IOException {
        return Files.readAllBytes(TestPrograms.rv64(name));
    }

    private static BadInputException refused(byte[] input) {
        return assertThrows(BadInputException.class, () -> Rewrite.of(ElfFile.parse(input, "forged"))
                .insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run());
    }

    /** Refused as a whole, or the function is left out with the reason (--insert-at-entries skips what it cannot move). */
    private static void refusedOrSkipped(byte[] input, String fragment) {
        try {
            Rewrite.Result r = Rewrite.of(ElfFile.parse(input, "forged"))
                    .insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run();
            assertTrue(r.skipped().stream().anyMatch(k -> k.reason() == PatchException.Reason.MALFORMED_INPUT
                    && k.message().contains(fragment)), r.skipped().toString());
        } catch (BadInputException e) {
            assertTrue(e.getMessage().startsWith("forged"), e.getMessage());
        }
    }

    /**
     * Fragments whose bytes end in half an instruction, or start a parcel of a reserved length
     * (0xffff: longer than 64 bits), are no code: session 12's fuzz run of the fragment target found
     * an ArrayIndexOutOfBoundsException in the fragment decoder for each (seed 25).
     */
    @Test
    void fragmentsEndingInHalfAnInstructionAreNoCode() throws IOException {
        ElfFile base = ElfFile.read(TestPrograms.rv64("count_loop.relocs"));
        for (String text : new String[] {".byte -1\n", ".byte -1\n.byte -1\n", "nop\n.byte 0\n", "nop\n.half 0xffff\n"}) {
            PatchException e = assertThrows(PatchException.class, () -> Rewrite.of(base)
                    .insert(new Insertion(base.header().entry(), text, "forged.s", BranchTarget.INSERTED)).run(), text);
            assertTrue(e.reason() == PatchException.Reason.FRAGMENT_NOT_CODE && e.getMessage().contains("forged.s"),
                    text + ": " + e.getMessage());
        }
    }

    @Test
    void noSectionNameTableForTheNewSectionNames() throws IOException {
        byte[] b = program("count_loop.relocs");
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(62, (short) 0); // e_shstrndx
        BadInputException e = refused(b);
        assertTrue(e.getMessage().contains("section name string table"), e.getMessage());
    }

    @Test
    void noFreeAddressForTheMovedProgramHeaders() throws IOException {
        byte[] b = program("bat_entries.relocs");
        growLastLoadSegment(b, 0x40000000L); // 1 GiB of memory: no page is left for the table within reach
        BadInputException e = refused(b);
        assertTrue(e.getMessage().contains("program header table"), e.getMessage());
    }

    /**
     * A last PT_LOAD grown by 32 MiB of memory no section explains: the moved table would sit past
     * it, behind 32 MiB of zeros in the output of a 30 KB input. Session 12's fuzz run of the patch
     * target found it (seed 25); the padding was bounded only by 64 MiB.
     */
    @Test
    void zerosNoSectionExplainsAreNotPaddedBeforeTheMovedProgramHeaders() throws IOException {
        byte[] b = program("bat_entries.relocs");
        growLastLoadSegment(b, 32L << 20);
        BadInputException e = refused(b);
        assertTrue(e.getMessage().contains("program header table") && e.getMessage().contains("no section explains"),
                e.getMessage());
    }

    private static void growLastLoadSegment(byte[] b, long by) {
        ElfFile elf = ElfFile.parse(b, "seed");
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = elf.segments().size() - 1; i >= 0; i--) {
            Segment s = elf.segments().get(i);
            if (s.isLoad()) {
                long at = elf.header().phoff() + (long) i * Segment.HEADER_SIZE + 40;
                buf.putLong((int) at, s.memorySize() + by);
                return;
            }
        }
    }

    @Test
    void aFunctionSizeRunningPastTheFileIsRefused() throws IOException {
        byte[] b = program("call_pairs.relocs");
        ElfFile elf = ElfFile.parse(b, "seed");
        var symtab = elf.section(".symtab").orElseThrow();
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (Symbol s : elf.symbols()) {
            if (s.type() == Symbol.STT_FUNC && s.size() >= 4) {
                buf.putLong((int) (symtab.offset() + 24L * s.index() + 16), Long.MAX_VALUE); // st_size
            }
        }
        refusedOrSkipped(b, "has no bytes in the file");
    }

    /**
     * An empty section's offset is never checked against the file (it has no bytes), so a forged
     * offset of 24,379,394 on an empty {@code .rela.text} reached the editor's in-place write of its
     * (empty) new contents: an ArrayIndexOutOfBoundsException, exit 3 (found by session 8's fuzz run).
     */
    @Test
    void anEmptySectionAtAForgedOffsetIsRewrittenWithoutWritingPastTheFile() throws IOException {
        byte[] b = program("call_pairs.relocs");
        ElfFile elf = ElfFile.parse(b, "seed");
        var rela = elf.section(".rela.text").orElseThrow();
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int header = (int) (elf.header().shoff() + 64L * rela.index());
        buf.putLong(header + 24, 24_379_394L); // sh_offset
        buf.putLong(header + 32, 0); // sh_size
        try {
            Rewrite.Result r = Rewrite.of(ElfFile.parse(b, "forged")).insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run();
            ElfFile.parse(r.bytes(), "output");
        } catch (BadInputException e) {
            assertTrue(e.getMessage().startsWith("forged"), e.getMessage());
        }
    }

    /**
     * A relocation section's sh_link may be 0 (relocations that name no symbol), but the relocation index
     * asked for the symbols of section 0 and got an IllegalArgumentException ("is not a symbol table",
     * exit 3; session 10's fuzz run, on an empty .rela.text). Now its relocations name no symbol: the empty
     * section patches, and one whose relocations name symbols is refused by the reader, located.
     */
    @Test
    void aRelocationSectionLinkedToNoSymbolTableIsReadAsNamingNoSymbols() throws IOException {
        for (boolean empty : new boolean[] {true, false}) {
            byte[] b = program("call_pairs.relocs");
            ElfFile elf = ElfFile.parse(b, "seed");
            var rela = elf.section(".rela.text").orElseThrow();
            ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            int header = (int) (elf.header().shoff() + 64L * rela.index());
            buf.putInt(header + 40, 0); // sh_link
            if (empty) {
                buf.putLong(header + 32, 0); // sh_size
                Rewrite.Result r = Rewrite.of(ElfFile.parse(b, "forged")).insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run();
                ElfFile.parse(r.bytes(), "output");
            } else {
                BadInputException e = refused(b);
                assertTrue(e.getMessage().startsWith("forged: offset 0x") && e.getMessage().contains("out of range (0 symbols"),
                        e.getMessage());
            }
        }
    }

    @Test
    void aFunctionBoltsRulesFormNoBlocksOfIsRefused() throws IOException {
        byte[] b = program("entries.relocs");
        // The fuzzer's input, as its byte edits: symbol section indices and names, .strtab and .rela.text bytes.
        int[][] edits = {{718, 0}, {880, 0}, {884, 0}, {979, 0150}, {980, 0165}, {981, 0102}, {982, 070}, {983, 0153},
            {984, 0165}, {1256, 0241}, {1257, 0276}, {1258, 034}, {1259, 0215}, {1260, 0150}, {1261, 0147}, {1262, 0353},
            {1263, 031}, {1616, 071}};
        for (int[] e : edits) {
            b[e[0]] = (byte) e[1];
        }
        refusedOrSkipped(b, "BOLT's CFG rules form no blocks");
    }

    @Test
    void aForgedAlignmentIsRefusedBeforePadding() throws IOException {
        for (String section : java.util.List.of(".text", ".symtab", ".strtab")) {
            byte[] b = program("count_loop.relocs");
            ElfFile elf = ElfFile.parse(b, "seed");
            int header = (int) (elf.header().shoff() + (long) elf.section(section).orElseThrow().index() * 64);
            ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(header + 48, 1L << 40); // sh_addralign
            long started = System.nanoTime();
            try {
                Rewrite.of(ElfFile.parse(b, "forged")).insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run();
            } catch (BadInputException e) {
                assertTrue(e.getMessage().startsWith("forged"), e.getMessage());
            }
            assertTrue(System.nanoTime() - started < 10_000_000_000L, section + ": padded for seconds");
        }
    }
    /**
     * A 64 MiB sh_addralign on a non-allocated section that the input does not place so (the fuzzer's
     * 2,400-byte input had it on {@code .symtab}): the output was padded by 64 MiB of zeros and the editor
     * allocated 128 MiB. Now the output is laid out as for the honest input, give or take a page.
     */
    @Test
    void anAlignmentTheInputDoesNotHonourDoesNotPadTheOutput() throws IOException {
        byte[] honest = program("count_loop.relocs");
        int expected = Rewrite.of(ElfFile.parse(honest, "seed")).insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED)
                .run().bytes().length;
        for (String section : java.util.List.of(".symtab", ".strtab", ".shstrtab")) {
            byte[] b = honest.clone();
            ElfFile elf = ElfFile.parse(b, "seed");
            int header = (int) (elf.header().shoff() + (long) elf.section(section).orElseThrow().index() * 64);
            ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(header + 48, 1L << 26); // sh_addralign
            int length = Rewrite.of(ElfFile.parse(b, "forged")).insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED)
                    .run().bytes().length;
            assertTrue(Math.abs(length - expected) <= 4096, section + ": " + length + " bytes against " + expected);
        }
    }
}
