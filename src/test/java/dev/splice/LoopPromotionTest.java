package dev.splice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.FunctionEdges;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.Liveness;
import dev.splice.cfg.riscv.RiscVEdges;
import dev.splice.cfg.riscv.RiscVLiveness;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which loops {@link LoopPromotion} promotes in {@code loops.relocs} (llvm-objdump-22 shows the
 * code: hot_loop's body is one block at +0xa that branches to itself, entered by fall-through from
 * the block ending at +0x8 and left into the return at +0x22; main's first loop at +0x38 has no
 * call, its second at +0x4c calls classify). The counts the promoted counters give are checked
 * against QEMU and {@code profile record} by {@code InstrumentationTest}.
 */
class LoopPromotionTest {
    private static LoopPromotion.Plan plan(ElfFile elf, RiscVEdges.Binary binary, String name) {
        Function f = elf.functions().stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow();
        FunctionEdges net = RiscVEdges.of(binary, f, RiscVEdges.notAfterAuipc(elf, f));
        ControlFlowGraph cfg = RiscVEdges.cfg(binary, f);
        byte[] code = elf.contents(f.section());
        int base = (int) (f.address() - f.section().address());
        Liveness live = RiscVLiveness.of(code, base, (int) f.size(), cfg);
        return LoopPromotion.plan(cfg, net, code, base, (int) f.size(), live, RiscVEdges.labels(binary, f),
                CounterFragments.CANDIDATES);
    }

    @Test
    void aLoopWithoutCallsKeepsItsCounterInARegisterAndACallingOneDoesNot() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);

        LoopPromotion.Plan hot = plan(elf, binary, "hot_loop");
        assertEquals(1, hot.register().size(), "hot_loop: one promoted counter " + hot);
        FlowEdge counted = hot.register().keySet().iterator().next();
        assertEquals(0xa, counted.probeOffset(), "the loop's counter is at its head");
        int register = hot.register().get(counted);
        assertEquals(List.of(register), hot.zeroing().get(0x8), "zeroed before the entering block's last instruction");
        assertEquals(List.of(counted), hot.flushes().get(0x22), "flushed at the only exit, the return block");
        assertEquals(1, hot.flushes().size());
        assertTrue((hot.reservedAt(0xa) & 1 << register) != 0, "other fragments in the loop keep off its register");
        assertTrue(register >= 5 && register <= 7 || register >= 10 && register <= 17 || register >= 28,
                "a caller-saved register: x" + register);

        LoopPromotion.Plan main = plan(elf, binary, "main");
        assertTrue(main.register().keySet().stream().allMatch(e -> e.probeOffset() >= 0x38 && e.probeOffset() < 0x48),
                "only main's first loop is promoted: " + main.register().keySet());
        assertEquals(1, main.zeroing().size(), "one promoted loop in main");
    }
}
