package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Functions under 8 bytes (too small for the far jump at their old entry) move when nothing needs
 * their old entry ({@link TinyFunctions}, {@link Trampolines#write}): called directly from moved
 * code, through a pointer in data ({@code operations[]} of loops.c), by {@code la}; the output
 * runs as the input under QEMU, their old bodies hold no jump, and the BAT maps their copies back.
 */
class TinyFunctionsTest {
    private static final String NOP = "addi x0, x0, 0\n";

    @TempDir Path tmp;

    @Test
    void tinyFunctionsMoveWhenNothingNeedsTheirOldEntry() throws Exception {
        for (String program : List.of("loops.relocs", "exceptions.relocs")) {
            Path in = TestPrograms.rv64(program);
            ElfFile elf = ElfFile.read(in);
            Rewrite.Result result = Rewrite.of(elf).insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED).run();
            Set<Long> inserted = result.inserted().stream().map(Rewrite.Entry::address).collect(Collectors.toSet());
            List<Function> tiny = new ArrayList<>();
            int tinyTotal = 0;
            for (Function f : elf.functions()) {
                if (f.size() > 0 && f.size() < 8 && f.section().isExecutable()) {
                    tinyTotal++;
                    if (inserted.contains(f.address())) {
                        tiny.add(f);
                    }
                }
            }
            long refused = result.skipped().stream().filter(s -> s.reason() == Reason.TOO_SMALL).count();
            long otherwise = result.skipped().stream().filter(s -> s.reason() == Reason.FALLS_THROUGH
                    && elf.function(s.function()).map(f -> f.size() < 8).orElse(false)).count();
            assertEquals(tinyTotal, tiny.size() + refused + otherwise, program + ": every tiny function moves or is refused");
            assertTrue(tiny.size() >= 10 && refused <= tinyTotal / 10, program + ": " + tiny.size() + " of " + tinyTotal
                    + " tiny functions moved");
            for (Rewrite.Skipped s : result.skipped()) {
                if (s.reason() == Reason.TOO_SMALL) {
                    assertTrue(s.message().contains("its old entry is still used: "), s.message());
                }
            }
            Path out = PatchFixtures.write(tmp, program, result.bytes());
            PatchFixtures.assertSameRun(in, out, "77");
            ElfFile output = ElfFile.read(out);
            BatTables bat = BatTables.read(output);
            byte[] image = result.bytes();
            for (Function f : tiny) {
                Function copy = output.functions().stream().filter(g -> g.name().equals(f.name())
                        && g.section().name().equals(NewSection.NAME)).findFirst().orElseThrow(() -> new AssertionError(f.name()));
                assertTrue(bat.isBatFunction(copy.address()), f.name() + " has a BAT map");
                assertEquals(0, bat.translate(copy.address(), 4, false), f.name() + ": its first instruction, after the nop");
                long offset = f.section().offset() + (f.address() - f.section().address());
                assertTrue(!BranchForm.JAL.reaches(copy.address() - f.address()), f.name() + ": the copy is out of a jal's reach");
                for (int k = 0; k < f.size(); k++) {
                    assertEquals(0, image[(int) offset + k], f.name() + ": old body byte " + k + " (no jump fits: zeros)");
                }
            }
        }
    }

    @Test
    void theTwiceOfLoopsCalledThroughAPointerInDataMoves() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        Function twice = elf.function("twice").orElseThrow();
        assertTrue(twice.size() < 8, "twice: " + twice.size());
        Rewrite.Result result = Rewrite.of(elf).insert(new Insertion(twice.address(), NOP, BranchTarget.INSERTED)).run();
        Path out = PatchFixtures.write(tmp, "twice", result.bytes());
        PatchFixtures.assertSameRun(in, out, "77");
        ElfFile output = ElfFile.read(out);
        long copy = output.function("twice").orElseThrow().address();
        // operations[] (a data word with an R_RISCV_64) now names the copy: the call through the pointer runs it.
        long word = elf.symbol("operations").orElseThrow().value();
        dev.splice.elf.Section data = output.sections().stream().filter(s -> s.isAllocated() && !s.isNobits()
                && word >= s.address() && word < s.address() + s.size()).findFirst().orElseThrow();
        assertEquals(copy, dev.splice.base.Le.u64(result.bytes(), (int) (data.offset() + word - data.address())), "operations[0]");
    }

    /**
     * A pattern ({@code entry:*}) tries functions under 8 bytes too (before, selection refused
     * every one up front as {@code TOO_SMALL}): only those whose old entry stays used are left out,
     * with that reason; the output runs as the input.
     */
    @Test
    void patternsLeaveOutOnlyTheTinyFunctionsWhoseOldEntryIsStillUsed() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        Rewrite.Result result = Rewrite.of(elf).at(PointSpec.parse("entry:*"), NOP, "nop.s", BranchTarget.INSERTED).run();
        Set<Long> inserted = result.points().stream().map(Point::address).collect(Collectors.toSet());
        int moved = 0;
        for (Function f : elf.functions()) {
            if (f.size() > 0 && f.size() < 8 && f.section().isExecutable() && inserted.contains(f.address())) {
                moved++;
            }
        }
        List<Point> tooSmall = result.refusedPoints().stream().filter(p -> p.refusal().reason() == Reason.TOO_SMALL).toList();
        assertTrue(moved >= 40 && tooSmall.size() <= 3, moved + " tiny functions moved, " + tooSmall.size() + " refused");
        for (Point p : tooSmall) {
            assertTrue(p.refusal().message().contains("its old entry is still used: "), p.refusal().message());
        }
        PatchFixtures.assertSameRun(in, PatchFixtures.write(tmp, "entries.points", result.bytes()), "77");
    }
}
