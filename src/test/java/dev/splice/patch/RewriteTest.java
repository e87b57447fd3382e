package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The entry of the package: edits collected, run once, results as records with reason codes. */
class RewriteTest {
    private static final String NOP = "addi x0, x0, 0\n";

    @TempDir Path tmp;

    @Test
    void bulkInsertionListsTheEntriesItInstrumentedAndTheFunctionsItSkippedWithTheirReasons() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        Rewrite.Result result = Rewrite.of(elf).insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED).run();
        assertTrue(result.inserted().size() > 500, "" + result.inserted().size());
        Set<Long> inserted = new HashSet<>();
        long previous = -1;
        for (Rewrite.Entry e : result.inserted()) {
            assertTrue(e.address() > previous, "address order");
            previous = e.address();
            assertTrue(elf.functions().stream().anyMatch(f -> f.address() == e.address() && f.name().equals(e.function())),
                    e.function());
            inserted.add(e.address());
        }
        // twice (4 bytes, called through a pointer in data) moves now: nothing needs its old entry. A tiny
        // function that an unmoved jal reaches stays, with the reason.
        assertTrue(inserted.contains(elf.function("twice").orElseThrow().address()), "twice moves");
        Rewrite.Skipped tiny = result.skipped().stream().filter(s -> s.function().equals("__deregister_frame_info")).findFirst()
                .orElseThrow();
        assertEquals(Reason.TOO_SMALL, tiny.reason());
        assertTrue(tiny.message().contains("too few") && tiny.message().contains("R_RISCV_JAL at 0x"), tiny.message());
        for (Rewrite.Skipped s : result.skipped()) {
            assertFalse(inserted.contains(s.address()), s.function() + " is both inserted and skipped");
        }
        Path out = tmp.resolve("loops.entries");
        result.writeTo(out);
        assertTrue(Files.isExecutable(out));
        assertArrayEquals(result.bytes(), Files.readAllBytes(out));
        PatchFixtures.assertSameRun(in, out);
    }

    @Test
    void aFunctionThatFallsThroughIsSkippedWithItsReason() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("plugin_markers.relocs"));
        Rewrite.Result result = Rewrite.of(elf).insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED).run();
        assertEquals(List.of(Reason.FALLS_THROUGH), result.skipped().stream().map(Rewrite.Skipped::reason).toList());
        assertEquals("_start", result.skipped().get(0).function());
    }

    @Test
    void replacementsComeFirstAndInsertionsUseTheInputsAddresses() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        Function classify = elf.function("classify").orElseThrow();
        Replacement twelve = new Replacement("classify",
                ReplaceTest.listing(elf, classify).replace("c.li a0, 11", "c.li a0, 12"), "c.s");
        Insertion probe = new Insertion(classify.address(), NOP, BranchTarget.INSERTED);
        byte[] chained = Inserter.insert(ElfFile.parse(Replacer.replace(elf, List.of(twelve)), elf.name()), List.of(probe));
        assertArrayEquals(chained, Rewrite.of(elf).replace(twelve).insert(probe).run().bytes());
        Rewrite.Result replacedOnly = Rewrite.of(elf).replace(twelve).run();
        assertArrayEquals(Replacer.replace(elf, List.of(twelve)), replacedOnly.bytes());
        assertTrue(replacedOnly.inserted().isEmpty() && replacedOnly.skipped().isEmpty());
    }

    @Test
    void aBinaryWithoutRelocationsIsRefusedWithItsReason() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops"));
        PatchException e = org.junit.jupiter.api.Assertions.assertThrows(PatchException.class,
                () -> Rewrite.of(elf).insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED).run());
        assertEquals(Reason.NO_RELOCATIONS, e.reason());
    }
}
