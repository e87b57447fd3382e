package dev.splice.weigh.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.campaign.WindowDesign;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbePair;
import dev.splice.weigh.probe.ProbeProgram;
import dev.splice.weigh.probe.Window;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The window design (issue 12): the sizes chosen bound every context's longest window, each context
 * keeps three distinct batch sizes, and its baseline runs at the same size. No QEMU: the pilot's
 * timing windows are made from known per-slot costs.
 */
class WindowSizesTest {
    private static final List<Integer> CALLS = MeasureOptions.WINDOW_CALLS;
    private static final int MAX_CALLS = CALLS.get(CALLS.size() - 1);

    @Test
    void theSizeIsTheLargestPowerOfTwoWithinTheTarget() {
        for (double ns = 0.01; ns < 20_000; ns *= 1.37) {
            int s = WindowSizes.slotsFor(ns, MAX_CALLS, WindowSizes.TARGET_NS, 1);
            assertEquals(1, Integer.bitCount(s), ns + " ns: " + s);
            assertTrue(s <= ProbeProgram.SLOTS);
            double longest = (double) MAX_CALLS * s * ns;
            assertTrue(longest <= WindowSizes.TARGET_NS || s == 1, ns + " ns: " + s + " slots, " + longest + " ns");
            assertTrue(s == ProbeProgram.SLOTS || 2 * longest > WindowSizes.TARGET_NS, ns + " ns: not the largest");
        }
        // session 8's costly contexts: jalr.indirect-jump 12 ns, CSR helpers 100 ns, traps 2.6 us
        assertEquals(128, WindowSizes.slotsFor(12, MAX_CALLS, WindowSizes.TARGET_NS, 1));
        assertEquals(16, WindowSizes.slotsFor(100, MAX_CALLS, WindowSizes.TARGET_NS, 1));
        assertEquals(1, WindowSizes.slotsFor(2600, MAX_CALLS, WindowSizes.TARGET_NS, 1));
        assertEquals(2, WindowSizes.slotsFor(11_000, MAX_CALLS, WindowSizes.TARGET_NS, 2), "page-fault keeps two");
        assertEquals(ProbeProgram.SLOTS, WindowSizes.slotsFor(0.3, MAX_CALLS, WindowSizes.TARGET_NS, 1));
        assertEquals(ProbeProgram.SLOTS, WindowSizes.slotsFor(12, MAX_CALLS, 0, 1), "target 0: the fixed design");
        ContextTable table = ContextTable.load();
        for (String c : List.of("sfence.vma.all.smode", "addi.tlb-miss.smode", "ld.tlb-miss.smode",
                "csrrw.satp.asid-flush.smode", "addi.machine-entry.mmode", "csrrs.mstatus.mmode")) {
            assertEquals(ProbeProgram.SLOTS, WindowSizes.minimumSlots(table.context(c).orElseThrow()), c + " flushes the TLB or runs through the monitor");
        }
        assertEquals(2, WindowSizes.minimumSlots(table.context("ld.page-fault.smode").orElseThrow()));
        assertEquals(1, WindowSizes.minimumSlots(table.context("ecall.smode").orElseThrow()));
    }

    @Test
    void thePilotsSizesBoundTheWindowsAndKeepThreeBatchesLikeWithLike() {
        ContextTable table = ContextTable.load();
        List<Context> targets = table.select("addi.independent,mul.dependency,div.dependency,jalr.indirect-jump,"
                + "fsqrt.d.dependency.nx-clear,csrrs.fflags");
        // per-slot costs of the order session 8 measured (ns), the cheap root baseline 0.3 ns
        Map<String, Double> cost = Map.of("addi.independent", 0.35, "mul.dependency", 1.1, "div.dependency", 7.0,
                "jalr.indirect-jump", 33.0, "jal.direct-jump", 6.0, "fsqrt.d.dependency.nx-clear", 25.0,
                "csrrs.fflags", 110.0);
        ProbeProgram.Probe pilot = ProbeProgram.generate(table, targets,
                new ProbeOptions(3, WindowSizes.PILOT_ROUNDS, List.of(1), 2));
        List<PluginRecords.TimingWindow> windows = new ArrayList<>();
        for (Window w : pilot.windows()) {
            long ns = Math.round(w.calls() * w.slots() * cost.getOrDefault(w.context(), 0.3));
            windows.add(new PluginRecords.TimingWindow(w.index(), 0, 0, 1000, 1000 + ns, 0, false));
        }
        // one interrupt in the pilot (+40 us on one window) does not move a median of three
        windows.set(pilot.pairs().get(0).probeWindow(), new PluginRecords.TimingWindow(0, 0, 0, 0, 40_000 + Math.round(
                ProbeProgram.SLOTS * cost.get(pilot.pairs().get(0).context())), 0, false));
        WindowDesign design = WindowSizes.design(pilot, windows, CALLS, WindowSizes.TARGET_NS, c -> 1);
        assertEquals(Set.copyOf(pilot.contexts()), design.contexts().keySet());
        for (var e : design.contexts().entrySet()) {
            double ns = cost.get(e.getKey());
            assertEquals(ns, e.getValue().nsPerSlot(), 1e-3, e.getKey());
            assertEquals(WindowSizes.slotsFor(ns, MAX_CALLS, WindowSizes.TARGET_NS, 1), e.getValue().slots(), e.getKey());
            assertTrue(e.getValue().longestWindowNs(MAX_CALLS) <= WindowSizes.TARGET_NS, e.getKey());
        }
        assertEquals(ProbeProgram.SLOTS, design.slots().get("addi.independent"));
        assertEquals(256, design.slots().get("div.dependency"));
        assertEquals(32, design.slots().get("jalr.indirect-jump"));
        assertEquals(16, design.slots().get("csrrs.fflags"), "16 x 16 x 110 ns = 28 us");

        ProbeProgram.Probe probe = ProbeProgram.generate(table, targets,
                new ProbeOptions(3, 2, CALLS, 2, design.slots()));
        Map<String, Set<Integer>> batches = new TreeMap<>();
        for (ProbePair p : probe.pairs()) {
            batches.computeIfAbsent(p.context(), k -> new TreeSet<>()).add(p.batch());
            Window pw = probe.windows().get(p.probeWindow());
            Window bw = probe.windows().get(p.baselineWindow());
            int slots = design.slots().get(p.context());
            assertEquals(slots, pw.slots(), p.toString());
            assertEquals(slots, bw.slots(), "the baseline at the probe's size: " + p);
            assertEquals(p.baseline(), bw.context());
            ProbeProgram.Kernel bk = probe.kernels().get(bw.kernel());
            assertEquals(slots, bk.slots());
            assertEquals(slots, bk.slotEncodings().stream().mapToLong(k -> bk.perCall().getOrDefault(k, 0L)).sum(),
                    bw.kernel() + " runs its size in target slots per call");
            double longest = (double) pw.calls() * slots * Math.max(cost.get(p.context()), cost.getOrDefault(p.baseline(), 0.3));
            assertTrue(longest <= WindowSizes.TARGET_NS, p + ": " + longest + " ns");
        }
        for (var e : batches.entrySet()) {
            int slots = design.slots().get(e.getKey());
            assertEquals(new TreeSet<>(CALLS.stream().map(c -> c * slots).toList()), e.getValue(),
                    e.getKey() + ": three distinct N = calls x slots");
        }
        // every kernel at 1024 slots gives the probe of the fixed design byte for byte
        assertTrue(java.util.Arrays.equals(ProbeProgram.generate(table, targets, new ProbeOptions(3, 2, CALLS, 2)).elf(),
                ProbeProgram.generate(table, targets, new ProbeOptions(3, 2, CALLS, 2,
                        WindowSizes.fixed(List.of(), CALLS).slots())).elf()));
    }
}
