package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fragments between the halves of a pc-relative pair (issue 17, point 5): accepted when the
 * fragment provably leaves the pair's register alone (it writes other registers only and calls
 * nothing), refused otherwise, with the register named.
 */
class PairInsertionTest {
    private static final String NOP = "addi x0, x0, 0\n";
    private static final Pattern REGISTER = Pattern.compile("writes no x(\\d+) and calls nothing");

    /** The points inside pairs that a fragment writing anything is refused at (what `splice points` lists). */
    private static List<Point> insidePairs(ElfFile elf, String spec) {
        return PointSelector.of(elf).select(PointSpec.parse(spec)).stream()
                .filter(p -> !p.accepted() && p.refusal().reason() == Reason.INSIDE_PC_RELATIVE_PAIR).toList();
    }

    @Test
    void aFragmentThatWritesNoRegisterGoesInsideEveryPair(@TempDir Path dir) throws Exception {
        Path in = TestPrograms.rv64("exceptions.relocs");
        ElfFile elf = ElfFile.read(in);
        String spec = "insn:main:.*";
        List<Point> inside = insidePairs(elf, spec);
        assertFalse(inside.isEmpty(), "main has points inside pc-relative pairs");
        Rewrite.Result r = Rewrite.of(elf).at(PointSpec.parse(spec), NOP, "nop.s", BranchTarget.INSERTED).run();
        assertTrue(r.refusedPoints().stream().noneMatch(p -> p.refusal().reason() == Reason.INSIDE_PC_RELATIVE_PAIR),
                r.refusedPoints().toString());
        List<Long> placed = r.points().stream().map(Point::address).toList();
        for (Point p : inside) {
            assertTrue(placed.contains(p.address()), p.location() + " was inserted at");
        }
        PatchFixtures.assertSameRun(in, PatchFixtures.write(dir, "nop.out", r.bytes()));
    }

    @Test
    void theBlockCounterGoesInsidePairsOfOtherRegisters(@TempDir Path dir) throws Exception {
        // examples/block-counter.s writes sp, t0 and t1 (saved and restored): pairs of other registers take it.
        Path in = TestPrograms.rv64("exceptions.relocs");
        ElfFile elf = ElfFile.read(in);
        String counter = Files.readString(TestPrograms.root().resolve("examples/block-counter.s"));
        String spec = "insn:main:.*";
        Rewrite.Result r = Rewrite.of(elf).at(PointSpec.parse(spec), counter, "block-counter.s", BranchTarget.INSERTED)
                .counterFile(dir.resolve("counts").toString()).run();
        List<Long> placed = r.points().stream().map(Point::address).toList();
        int accepted = 0;
        for (Point p : insidePairs(elf, spec)) {
            Matcher m = REGISTER.matcher(p.refusal().message());
            assertTrue(m.find(), p.refusal().message());
            int register = Integer.parseInt(m.group(1));
            boolean written = register == 2 || register == 5 || register == 6;
            assertEquals(!written, placed.contains(p.address()), p.location() + ", pair register x" + register);
            accepted += written ? 0 : 1;
        }
        assertTrue(accepted > 0, "some pair of main keeps a register the counter leaves alone");
        PatchFixtures.assertSameRun(in, PatchFixtures.write(dir, "counter.out", r.bytes()));
    }

    @Test
    void aFragmentThatWritesThePairsRegisterIsRefused() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("exceptions.relocs"));
        Point p = insidePairs(elf, "insn:main:.*").get(0);
        Matcher m = REGISTER.matcher(p.refusal().message());
        assertTrue(m.find(), p.refusal().message());
        String clobber = "addi x" + m.group(1) + ", x" + m.group(1) + ", 0\n"; // same value, but written
        PatchException e = assertThrows(PatchException.class,
                () -> Inserter.insert(elf, List.of(new Insertion(p.address(), clobber, "clobber.s", BranchTarget.INSERTED))));
        assertEquals(Reason.INSIDE_PC_RELATIVE_PAIR, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("writes no x" + m.group(1) + " and calls nothing"), e.getMessage());
        // A call may write any register.
        PatchException call = assertThrows(PatchException.class,
                () -> Inserter.insert(elf, List.of(new Insertion(p.address(), "call abort\n", "call.s", BranchTarget.INSERTED))));
        assertEquals(Reason.INSIDE_PC_RELATIVE_PAIR, call.reason(), call.getMessage());
        // Without the pair's register, the same point takes it.
        assertTrue(Inserter.insert(elf, List.of(new Insertion(p.address(), NOP, "nop.s", BranchTarget.INSERTED))).length > 0);
    }
}
