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
        return plan(elf, binary, name, target -> -1);
    }

    private static Function function(ElfFile elf, String name) {
        return elf.functions().stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow();
    }

    private static LoopPromotion.Plan plan(ElfFile elf, RiscVEdges.Binary binary, String name,
                                           java.util.function.LongToIntFunction leaves) {
        Function f = function(elf, name);
        FunctionEdges net = RiscVEdges.of(binary, f, RiscVEdges.notAfterAuipc(elf, f));
        ControlFlowGraph cfg = RiscVEdges.cfg(binary, f);
        byte[] code = elf.contents(f.section());
        int base = (int) (f.address() - f.section().address());
        Liveness live = RiscVLiveness.of(code, base, (int) f.size(), cfg);
        return LoopPromotion.plan(cfg, net, code, base, (int) f.size(), live, RiscVEdges.labels(binary, f),
                CounterFragments.CANDIDATES, f.address(), leaves);
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

    @Test
    void aLoopThatCallsALeafKeepsItsCounterInARegisterTheLeafLeavesAlone() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
        Function classify = function(elf, "classify");
        byte[] code = elf.contents(classify.section());
        int base = (int) (classify.address() - classify.section().address());
        // classify's jump table jumps from +0x26 (jr a5) to its cases; without that it is no known leaf.
        assertEquals(-1, LoopPromotion.leafRegisters(code, base, (int) classify.size(), java.util.Set.of()));
        int touched = LoopPromotion.leafRegisters(code, base, (int) classify.size(), java.util.Set.of(0x26));
        assertEquals(1 << 1 | 1 << 10 | 1 << 13 | 1 << 14 | 1 << 15, touched, "classify reads ra, a0, a3-a5 and writes a0, a3-a5");
        Function fib = function(elf, "fib");
        assertEquals(-1, LoopPromotion.leafRegisters(elf.contents(fib.section()), (int) (fib.address() - fib.section().address()),
                (int) fib.size(), java.util.Set.of()), "fib calls itself: no leaf");

        LoopPromotion.Plan main = plan(elf, binary, "main", target -> target == classify.address() ? touched : -1);
        FlowEdge second = main.register().keySet().stream().filter(e -> e.probeOffset() == 0x4c).findFirst()
                .orElseThrow(() -> new AssertionError("main's second loop (head +0x4c, calls classify) is promoted: " + main));
        int register = main.register().get(second);
        assertTrue((touched & 1 << register) == 0 && register != 6, "a register classify and the old entries' jumps leave alone: x"
                + register);
        assertEquals(List.of(register), main.zeroing().get(0x4a), "zeroed before the entering block's last instruction");
        // Its exit at +0x5a is also the target of the n <= 0 path's jump at +0xc0: zeroed there too, flushed at every arrival.
        assertEquals(List.of(register), main.zeroing().get(0xc0), "zeroed on the way into the exit from outside");
        assertTrue(main.flushes().get(0x5a).contains(second), "flushed at the shared exit");
        assertEquals(1 << register, main.preserved().get(classify.address()) & 1 << register, "classify's counters must keep it");
        assertEquals(3, main.zeroing().size(), "main's first loop stays promoted: " + main.zeroing());
    }

    /**
     * A loop entered from a conditional branch: in cxx_work's main, the std::map descent (head
     * .L216 at +0x108) is entered by the fall-through of {@code beqz a5, .L213} at +0x106, whose
     * taken way goes elsewhere: a zeroing there goes before that branch and runs on both ways.
     */
    @Test
    void aBlockEndingInAConditionalBranchIsZeroedBeforeTheBranch() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("cxx_work.relocs"));
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
        Function f = function(elf, "main");
        ControlFlowGraph cfg = RiscVEdges.cfg(binary, f);
        int base = (int) (f.address() - f.section().address());
        assertEquals(0x106, LoopPromotion.zeroPoint(cfg.blocks().get(cfg.blockIndexAt(0xfe)), elf.contents(f.section()), base));
    }

    /**
     * Promotion across rare calls (issue 16, session 12): cxx_work's main counts its keys in a
     * std::map, one element per run of the loop at .L221 (+0xfe, entered from .L209 at +0xfc); each
     * runs the tree's descent (.L216, +0x108) and, for a key not yet in the map, calls
     * {@code operator new} (+0x126), the tree's insertion (+0x13a) and its rebalancing (+0x152),
     * or {@code operator delete} (+0x204): 1,000 of 300,000 elements. The descent is no longer
     * zeroed on each of its entries (before +0x106) and flushed at each exit: its counters (the
     * fall-through at +0x10e, the taken branch into .L214 counted at +0x1f6) live in the outer
     * loop's registers with the outer loop's own (the taken {@code bge} at +0x11c), zeroed once
     * at +0xfc and flushed at its exit +0x16c, and around each call: flushed before it, zeroed
     * after it. The insertion sort's outer loop (.L208, +0xd8) leaves into +0xfc too: its flush
     * shares that address with the map loop's zeroing, each with its own registers. Before
     * session 12 the descent was zeroed at +0x106 and the outer loops' counters stayed in memory.
     * {@code InstrumentationTest.cxxWorkGivesTheTrueEdgeCounts} checks every count under QEMU.
     */
    @Test
    void aLoopWithRareCallsKeepsItsInnerLoopsCountersInRegistersAcrossThem() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("cxx_work.relocs"));
        LoopPromotion.Plan main = plan(elf, RiscVEdges.Binary.of(elf), "main");
        java.util.Map<Integer, Integer> at = new java.util.HashMap<>();
        main.register().forEach((e, r) -> at.put(e.probeOffset(), r));
        for (int probe : new int[] {0x10e, 0x1f6, 0x11c}) {
            assertTrue(at.containsKey(probe), "+0x" + Integer.toHexString(probe) + " is promoted: " + at.keySet());
        }
        assertTrue(main.zeroing().get(0xfc).containsAll(List.of(at.get(0x10e), at.get(0x1f6), at.get(0x11c))),
                "zeroed once per entry of the map loop: " + main.zeroing());
        assertTrue(!main.zeroing().containsKey(0x106), "not on each entry of the descent: " + main.zeroing().keySet());
        for (int[] call : new int[][] {{0x126, 0x12a}, {0x13a, 0x13e}}) {
            assertTrue(main.flushes().get(call[0]).stream().anyMatch(e -> e.probeOffset() == 0x1f6),
                    "flushed before the call at +0x" + Integer.toHexString(call[0]) + ": " + main.flushes().keySet());
            assertTrue(main.zeroing().get(call[1]).contains(at.get(0x1f6)), "zeroed after it: " + main.zeroing().keySet());
        }
        assertTrue(main.flushes().get(0x16c).stream().anyMatch(e -> e.probeOffset() == 0x10e), "flushed at the exit");
        List<Integer> sortFlushed = main.flushes().get(0xfc).stream().map(e -> main.register().get(e)).toList();
        assertTrue(!sortFlushed.isEmpty() && sortFlushed.stream().noneMatch(main.zeroing().get(0xfc)::contains),
                "the insertion sort's flush at +0xfc keeps off the map loop's registers: " + sortFlushed + ", "
                        + main.zeroing().get(0xfc));
    }

    /**
     * glibc's {@code __strchrnul} starts with {@code bnez a5, .L4; j .L2} (+0x8, +0xa): one block
     * that enters its byte loop (head .L4 at +0x16) by the branch and otherwise jumps to the word
     * loop. A zeroing before the jump would run on the jump's way only, and the loop would count
     * from whatever the register held (session 8's attempt: InstrumentationTest found __strchrnul
     * contradicting conservation): it goes before the branch. The byte loop's counters are on
     * exit edges (+0xc to .L3, +0x14 to .L2), which count at most once per entry of the loop and
     * never pay for a zeroing and a flush: the loop stays with memory counters.
     */
    @Test
    void aBranchThenJumpBlockIsZeroedBeforeTheBranchAndExitCountersStayInMemory() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
        Function f = function(elf, "__strchrnul");
        ControlFlowGraph cfg = RiscVEdges.cfg(binary, f);
        byte[] code = elf.contents(f.section());
        int base = (int) (f.address() - f.section().address());
        assertEquals(0x8, LoopPromotion.zeroPoint(cfg.blocks().get(0), code, base), "before bnez, not before j");
        LoopPromotion.Plan plan = plan(elf, binary, "__strchrnul");
        assertTrue(plan.register().keySet().stream().noneMatch(e -> e.probeOffset() == 0xc || e.probeOffset() == 0x14),
                "exit counters stay in memory: " + plan.register());
    }

    /**
     * Flushes on the exit edges: in cxx_work's {@code __introsort_loop}, the partition loop (head
     * +0x5c, its scans' heads +0x64 and +0x78, the hottest counters of the function) leaves by
     * {@code bgeu s0, a7} at +0x84 when taken and by the fall-through from {@code bltu} at +0xbe
     * into +0xc2, where a fall-through counter (policy ORIGINAL) counts that very edge: a flush at
     * +0xc2 for every arrival (INSERTED) cannot be there. The flushes go on the edges instead:
     * before the branch, run only when it will be taken, and at +0xc2 with policy ORIGINAL.
     * {@code InstrumentationTest.cxxWorkGivesTheTrueEdgeCounts} checks the counts under QEMU.
     */
    @Test
    void aLoopWhoseExitHoldsAFallThroughCounterIsFlushedOnItsExitEdges() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("cxx_work.relocs"));
        Function f = elf.functions().stream().filter(g -> g.name().startsWith("_ZSt16__introsort_loop")).findFirst().orElseThrow();
        LoopPromotion.Plan plan = plan(elf, RiscVEdges.Binary.of(elf), f.name());
        List<FlowEdge> scans = plan.register().keySet().stream()
                .filter(e -> e.probeOffset() == 0x64 || e.probeOffset() == 0x78).toList();
        assertEquals(2, scans.size(), "the scans' arrivals are promoted: " + plan.register().keySet());
        assertTrue(plan.takenFlushes().contains(0x84), "flushed before bgeu when it is taken: " + plan.takenFlushes());
        assertTrue(plan.fallThroughFlushes().contains(0xc2), "flushed on the fall-through into +0xc2: " + plan.fallThroughFlushes());
        assertTrue(plan.flushes().get(0x84).containsAll(scans) && plan.flushes().get(0xc2).containsAll(scans), plan.flushes().toString());
    }
}
