package dev.splice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.patch.Point;
import dev.splice.patch.PointKind;
import dev.splice.patch.PointSpecException;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Point selection through the facade: {@link Binary#points} and {@link Rewrite#at}. */
class PointsTest {
    @TempDir Path dir;

    @Test
    void theHotLoopsHeadIsItsBackwardBranchsTargetAndAFragmentThereRunsOncePerIteration() {
        Path input = TestPrograms.rv64("loops.relocs");
        Binary binary = Binary.open(input);
        Function hot = binary.function("hot_loop").orElseThrow();
        List<Instruction> code = hot.instructions();
        Instruction backward = code.stream().filter(i -> i.controlFlow() == dev.splice.isa.ControlFlow.BRANCH)
                .filter(i -> ((Operand.Target) i.operands().get(i.operands().size() - 1)).address() < i.address())
                .findFirst().orElseThrow();
        long head = ((Operand.Target) backward.operands().get(backward.operands().size() - 1)).address();
        List<Point> points = binary.points("loop:hot_loop", "hot_loop+0x" + Long.toHexString(head - hot.address()));
        assertEquals(2, points.size());
        assertEquals(PointKind.LOOP, points.get(0).kind());
        assertEquals(head, points.get(0).address());
        assertEquals(head, points.get(1).address());
        assertTrue(points.get(0).accepted());
        // A fragment at the head that writes one byte to stderr: as many bytes as iterations.
        String mark = "addi sp, sp, -48\nsd a0, 8(sp)\nsd a1, 16(sp)\nsd a2, 24(sp)\nsd a7, 32(sp)\n"
                + "li a0, 46\nsd a0, 0(sp)\nli a0, 2\naddi a1, sp, 0\nli a2, 1\nli a7, 64\necall\n"
                + "ld a0, 8(sp)\nld a1, 16(sp)\nld a2, 24(sp)\nld a7, 32(sp)\naddi sp, sp, 48\n";
        Path out = dir.resolve("counted");
        dev.splice.patch.Rewrite.Result result = binary.rewrite().at("loop:hot_loop", mark).run();
        assertEquals(List.of(points.get(0)), result.points());
        result.writeTo(out);
        Tools.Result before = Tools.run("qemu-riscv64", input.toString(), "13");
        Tools.Result after = Tools.run("qemu-riscv64", out.toString(), "13");
        assertEquals(before.stdout(), after.stdout());
        assertEquals(before.exitCode(), after.exitCode());
        assertEquals(".".repeat(13), after.stderr(), "one byte per iteration");
    }

    @Test
    void badSpecsAreRefusedWhenGiven() {
        Binary binary = Binary.open(TestPrograms.rv64("loops.relocs"));
        PointSpecException e = assertThrows(PointSpecException.class, () -> binary.rewrite().at("loops:main", "nop\n"));
        assertEquals(1, e.column());
        assertThrows(PointSpecException.class, () -> binary.points("entry:"));
    }
}
