package dev.splice.patch;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.LandingPads;
import dev.splice.cfg.Liveness;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.cfg.riscv.RiscVDataReferences;
import dev.splice.cfg.riscv.RiscVLiveness;
import dev.splice.elf.Function;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Register liveness of the input's functions ({@link RiscVLiveness} over each one's graph with its
 * landing pads; jumps to another function's entry are tail calls, except into a {@code .cold} part),
 * made on first use and kept: what a far jump may write. Not thread-safe.
 */
final class FunctionLiveness {
    /** Registers a far jump may write when liveness proves them dead, in order of preference: t1, t2, t3-t6, t0, a7-a2. */
    static final int[] SCRATCH_CANDIDATES = {6, 7, 28, 29, 30, 31, 5, 17, 16, 15, 14, 13, 12};

    private final Input in;
    private final Map<Long, Liveness> liveness = new HashMap<>();
    private final Map<Long, ControlFlowGraph> cfgs = new HashMap<>();
    private Map<Long, long[]> landingPads;
    private Set<Long> abiEntries;

    FunctionLiveness(Input in) {
        this.in = in;
    }

    /** The liveness of {@code f}, or null when it has no graph. */
    Liveness of(Function f) {
        if (!liveness.containsKey(f.address())) {
            liveness.put(f.address(), solve(f));
        }
        return liveness.get(f.address());
    }

    /** The graph {@link #of} solved {@code f} over (null before, or when it has none). */
    ControlFlowGraph cfg(Function f) {
        return cfgs.get(f.address());
    }

    /**
     * A caller-saved register ({@link #SCRATCH_CANDIDATES}) dead at the entry of the function that
     * starts at {@code address}, which a function before it falls into: the jump back from that
     * function's copy may write it. -1 when no function (other than a {@code .cold} part) starts
     * there in a code section, it has no graph, or every candidate is live.
     */
    int deadAtEntry(long address) {
        Function next = null;
        for (Function g : in.elf().functions()) {
            if (g.address() == address && g.size() > 0 && g.section() != null && g.section().isExecutable()
                    && !g.section().isNobits()) {
                if (g.name().contains(".cold")) {
                    return -1;
                }
                next = g;
            }
        }
        Liveness live = next == null ? null : of(next);
        if (live == null) {
            return -1;
        }
        int[] dead = live.deadBefore(0, SCRATCH_CANDIDATES);
        return dead.length == 0 ? -1 : dead[0];
    }

    private Liveness solve(Function f) {
        byte[] code = in.elf().contents(f.section());
        int base = (int) (f.address() - f.section().address());
        int size = (int) f.size();
        if (landingPads == null) {
            landingPads = LandingPads.of(in.elf());
        }
        int[] pads = RiscVDataReferences.within(landingPads.getOrDefault(f.address(), new long[0]), f.address(), size);
        ControlFlowGraph cfg = RiscVCfg.of(code, base, size, pads);
        if (cfg == null) {
            return null;
        }
        cfgs.put(f.address(), cfg);
        if (abiEntries == null) { // a jump to another function's start is a tail call, except into a .cold part
            abiEntries = new HashSet<>();
            in.elf().functions().stream().filter(g -> !g.name().contains(".cold")).forEach(g -> abiEntries.add(g.address()));
            in.elf().functions().stream().filter(g -> g.name().contains(".cold")).forEach(g -> abiEntries.remove(g.address()));
        }
        return RiscVLiveness.of(code, base, size, cfg, f.address(), abiEntries::contains);
    }
}
