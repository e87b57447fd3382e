package dev.splice.weigh.measure;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.campaign.WindowDesign;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbePair;
import dev.splice.weigh.probe.ProbeProgram;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Chooses the target slots per kernel call of each context so that its longest window (the largest
 * batch's calls x slots x the cost of a slot) lasts at most a target duration (issue 12: a host interrupt
 * charges 15 to 60 us to the window it hits, with a chance that grows with the window's length). The
 * cost of a slot comes from a pilot pass: a timing pass of a small probe of the same kernels at
 * {@link ProbeProgram#SLOTS} slots, one call per window, {@link #PILOT_ROUNDS} rounds. The sizes are
 * powers of two from {@code SLOTS} down to 1, so a context's windows last between half the target and
 * the target (a context whose single slot already exceeds it gets 1 slot).
 */
final class WindowSizes {
    /**
     * The longest window's target, in ns of the timing pass's thread CPU time: 32 us. At the host's
     * 0.5 to 0.9 interrupts per ms of CPU time, a 32 us window is hit with a chance of 1.6 to 2.9%, and a
     * pair's three batches (1, 4 and 16 calls) average 0.4 to 0.8% per window: a contamination the
     * model's bisquare sheds, as it does for cheap contexts (whose longest windows are 1 to 20 us). A
     * smaller target would cut further into slots whose per-call fixed part (prologue, epilogue, the call)
     * then outweighs the target slots.
     */
    static final long TARGET_NS = 32_000;
    /** Pilot rounds: the median of three windows per kernel is not moved by one interrupt. */
    static final int PILOT_ROUNDS = 3;

    private WindowSizes() {}

    /**
     * The largest power of two of slots, at most {@link ProbeProgram#SLOTS}, whose longest window
     * ({@code maxCalls x slots x nsPerSlot}) stays within {@code targetNs}; at least 1.
     *
     * @param nsPerSlot the cost of one slot (ns); not finite or not positive: {@code SLOTS}
     * @param maxCalls kernel calls of the largest batch
     * @param targetNs the longest window's target (ns); 0: {@code SLOTS}
     * @param minimum the fewest slots the context's kernel works with ({@link #minimumSlots})
     * @return slots per kernel call
     */
    static int slotsFor(double nsPerSlot, int maxCalls, long targetNs, int minimum) {
        int slots = ProbeProgram.SLOTS;
        if (targetNs <= 0 || !(nsPerSlot > 0) || !Double.isFinite(nsPerSlot)) {
            return slots;
        }
        while (slots > minimum && (double) maxCalls * slots * nsPerSlot > targetNs) {
            slots /= 2;
        }
        return slots;
    }

    /**
     * The fewest slots a context's kernel measures what it should with: {@link ProbeProgram#SLOTS} for a
     * context whose slot or per-slot setup flushes the TLB ({@code sfence.vma}, the {@code tlb-miss}
     * pattern, the satp write that flushes an ASID): after the last slot's flush the kernel's epilogue
     * (its store to the hot buffer) and the return miss the TLB again, and not equally in probe and
     * baseline ({@code ld.tlb-miss}'s load refills the hot page's entry that its baseline's epilogue must
     * refill), a per-call difference only many slots amortize (at 1 slot {@code ld.tlb-miss.smode} came out
     * below {@code ld.hot-load.smode}); 2 for {@code page-fault} (its slots alternate between two pages of
     * which only the other one is mapped, so that every slot faults; one slot would fault once and then
     * find its page mapped); {@code SLOTS} for an M-mode context (system mode runs each call of its kernel
     * through the monitor, about 20 us, which {@code addi.machine-entry.mmode} measures per slot: divided by
     * the slots, so it and the contexts measured against it must keep one size; at 64 slots it came out
     * at 277 ns instead of 16, and the calls' 20 us kept the windows long anyway); 1 otherwise.
     *
     * @param c a context
     * @return a power of two
     */
    static int minimumSlots(Context c) {
        boolean flushes = c.pattern() == Context.Pattern.TLB_MISS || c.mnemonic().startsWith("sfence.vma")
                || c.key().contains("flush");
        if (flushes || c.machineMode()) {
            return ProbeProgram.SLOTS;
        }
        return c.pattern() == Context.Pattern.PAGE_FAULT ? 2 : 1;
    }

    /**
     * Every context at {@link ProbeProgram#SLOTS} slots: the design of campaigns written before
     * design.json existed (their runs resume with the same probes) and of {@code --window-us 0}.
     *
     * @param contexts the probed contexts
     * @param calls calls per window of each batch
     * @return the design
     */
    static WindowDesign fixed(List<String> contexts, List<Integer> calls) {
        Map<String, WindowDesign.Size> sizes = new LinkedHashMap<>();
        contexts.forEach(c -> sizes.put(c, new WindowDesign.Size(Double.NaN, ProbeProgram.SLOTS)));
        return new WindowDesign(0, calls, "fixed: every kernel at " + ProbeProgram.SLOTS + " slots", sizes);
    }

    /**
     * Times every kernel once per round in a pilot pass and chooses each context's slots.
     *
     * @param runner how probes run (user or system mode)
     * @param table the context table
     * @param targets the contexts to measure
     * @param calls calls per window of each batch
     * @param targetNs the longest window's target
     * @param seed the pilot probe's seed
     * @param elf where the pilot probe is written
     * @return the design
     * @throws BadInputException when the pilot pass fails
     */
    static WindowDesign pilot(ProbeRunner runner, ContextTable table, List<Context> targets, List<Integer> calls,
            long targetNs, long seed, Path elf) {
        ProbeProgram.Probe probe = ProbeProgram.generate(table, targets, new ProbeOptions(seed, PILOT_ROUNDS, List.of(1), 2));
        AtomicFiles.writeExecutable(elf, probe.elf());
        Path dir = QemuRunner.createTempDirectory("splice-window-pilot-");
        try {
            QemuRunner.Result r = runner.withPlugin(probe, elf, PluginRecords.Mode.TIMING, dir.resolve("pilot.clock"),
                    dir.resolve("pilot.records"));
            if (r.exitCode() != 0 || r.records().isEmpty()) {
                throw new BadInputException(elf + ": the probe exited with status " + r.exitCode()
                        + " in the window design's pilot pass");
            }
            return design(probe, r.records().get().timingWindows(), calls, targetNs,
                    key -> table.context(key).map(WindowSizes::minimumSlots).orElse(1));
        } finally {
            QemuRunner.deleteRecursively(dir);
        }
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    /** Each context's median per-slot cost (the costlier window of each pair) and its slots. */
    static WindowDesign design(ProbeProgram.Probe probe, List<PluginRecords.TimingWindow> windows, List<Integer> calls,
            long targetNs, java.util.function.ToIntFunction<String> minimum) {
        Map<String, List<Double>> perSlot = new LinkedHashMap<>();
        probe.contexts().forEach(c -> perSlot.put(c, new ArrayList<>()));
        for (ProbePair p : probe.pairs()) {
            PluginRecords.TimingWindow pw = windows.get(p.probeWindow());
            PluginRecords.TimingWindow bw = windows.get(p.baselineWindow());
            if (!pw.timerFailed() && !bw.timerFailed()) {
                perSlot.get(p.context()).add((double) Math.max(pw.elapsedNs(), bw.elapsedNs()) / p.batch());
            }
        }
        int maxCalls = calls.get(calls.size() - 1);
        Map<String, WindowDesign.Size> sizes = new LinkedHashMap<>();
        perSlot.forEach((c, v) -> {
            double ns = v.isEmpty() ? Double.NaN : median(v);
            sizes.put(c, new WindowDesign.Size(Math.round(ns * 1000) / 1000.0, slotsFor(ns, maxCalls, targetNs, minimum.applyAsInt(c))));
        });
        return new WindowDesign(targetNs, calls, "pilot timing pass: " + PILOT_ROUNDS + " rounds of one-call windows of "
                + ProbeProgram.SLOTS + " slots; per context the median over rounds of the costlier window of its pair "
                + "(probe or baseline) per slot; slots: the largest power of two up to " + ProbeProgram.SLOTS
                + " (page-fault: at least 2; contexts that flush the TLB and M-mode ones: " + ProbeProgram.SLOTS + ") whose largest batch stays within the target", sizes);
    }
}
