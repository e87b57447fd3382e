package dev.splice.cfg;

import dev.splice.cfg.ControlFlowGraph.Block;
import java.util.List;

/**
 * Which integer registers hold a value the function may still read: backward data flow over a
 * {@link ControlFlowGraph}, per block and per instruction boundary. Registers are bits of an
 * {@code int} (bit r for xr). The instructions' effects come from the ISA's side ({@code
 * cfg.riscv.RiscVLiveness}): what each one reads and writes, what is live when control leaves the
 * function at it (a return, a tail call, an unknown jump), and whether it may throw to the
 * function's landing pads. A register not in {@link #liveBefore} at a boundary may be overwritten
 * there without changing what the function computes (under the effects' assumptions, the ABI's).
 */
public final class Liveness {
    /**
     * What one instruction does to the registers.
     *
     * @param uses the registers it reads
     * @param defs the registers it overwrites (a call: what the callee may clobber)
     * @param leaving the registers live when control leaves the function through it (0 if it does not)
     * @param mayThrow whether an exception may leave it for one of the function's landing pads (a call)
     * @param target the offset a direct branch or jump of it goes to inside the function, else -1:
     *     where a block ends in "branch; jump", the branch's target is live after the branch only
     */
    public record Effect(int uses, int defs, int leaving, boolean mayThrow, int target) {}

    private final int size;
    private final int[] before;
    private final int[] after;
    private final int[] blockIn;
    private final int[] blockOut;

    private Liveness(int size, int[] before, int[] after, int[] blockIn, int[] blockOut) {
        this.size = size;
        this.before = before;
        this.after = after;
        this.blockIn = blockIn;
        this.blockOut = blockOut;
    }

    /**
     * Solves the data flow to its least fixed point: live before an instruction is what it reads,
     * plus what is live after it and it does not overwrite, plus (for one that may throw) what is
     * live at any landing pad; live after a block's last instruction is what its successors need
     * plus what leaving there needs. {@code always} is live everywhere (the stack and thread
     * pointers: a signal handler uses them at any point).
     *
     * @param cfg the function's graph
     * @param effects the effect of the instruction at each offset (indexed by offset; entries at
     *     offsets that start no instruction are ignored)
     * @param landingPads the blocks the unwinder may enter, by index
     * @param always registers live at every boundary
     * @return the solution
     */
    public static Liveness solve(ControlFlowGraph cfg, Effect[] effects, int[] landingPads, int always) {
        List<Block> blocks = cfg.blocks();
        int n = blocks.size();
        int[] in = new int[n];
        int[] out = new int[n];
        boolean changed = true;
        while (changed) {
            changed = false;
            int pads = 0;
            for (int p : landingPads) {
                pads |= in[p];
            }
            for (int b = n - 1; b >= 0; b--) {
                Block block = blocks.get(b);
                out[b] = endNeeds(block, effects, in, always, cfg);
                int live = out[b];
                List<Integer> insns = block.instructions();
                for (int i = insns.size() - 1; i >= 0; i--) {
                    int at = insns.get(i);
                    live = transfer(effects[at], live | branchTarget(cfg, effects[at], in), pads, always);
                }
                if (live != in[b]) {
                    in[b] = live;
                    changed = true;
                }
            }
        }
        int pads = 0;
        for (int p : landingPads) {
            pads |= in[p];
        }
        int[] before = new int[cfg.size() + 1];
        int[] after = new int[cfg.size() + 1];
        for (int b = 0; b < n; b++) {
            List<Integer> insns = blocks.get(b).instructions();
            int live = out[b];
            for (int i = insns.size() - 1; i >= 0; i--) {
                int at = insns.get(i);
                Effect e = effects[at];
                live |= branchTarget(cfg, e, in);
                after[at] = live | e.leaving() | (e.mayThrow() ? pads : 0);
                if (i == insns.size() - 1) {
                    out[b] = after[at];
                }
                live = transfer(e, live, pads, always);
                before[at] = live;
            }
        }
        return new Liveness(cfg.size(), before, after, in, out);
    }

    /**
     * What is live at the end of a block before its last instruction's own target: the fall-through
     * block's needs, and those of taken blocks no instruction of the block names as its direct
     * target (a jump table's); a direct target counts at its own instruction ({@link
     * #branchTarget}), so in a block that ends in "branch; jump" the branch's target is live after
     * the branch only.
     */
    private static int endNeeds(Block block, Effect[] effects, int[] in, int always, ControlFlowGraph cfg) {
        int live = always | (block.fallThrough() >= 0 ? in[block.fallThrough()] : 0);
        for (int t : block.taken()) {
            boolean direct = false;
            for (int at : block.instructions()) {
                direct |= effects[at].target() >= 0 && cfg.blockIndexAt(effects[at].target()) == t;
            }
            if (!direct) {
                live |= in[t];
            }
        }
        return live;
    }

    /** The needs of the block an instruction's direct target starts (0 without one). */
    private static int branchTarget(ControlFlowGraph cfg, Effect e, int[] in) {
        return e.target() >= 0 ? in[cfg.blockIndexAt(e.target())] : 0;
    }

    private static int transfer(Effect e, int liveAfter, int pads, int always) {
        int live = liveAfter | e.leaving();
        live = (live & ~e.defs()) | e.uses();
        if (e.mayThrow()) {
            live |= pads;
        }
        return (live | always) & ~1;
    }

    /**
     * The registers live at the boundary before an instruction.
     *
     * @param offset the instruction's offset in the function
     * @return the registers, bit r for xr
     */
    public int liveBefore(int offset) {
        return before[check(offset)];
    }

    /**
     * The registers live right after an instruction (before its successors, when it ends a block).
     *
     * @param offset the instruction's offset in the function
     * @return the registers, bit r for xr
     */
    public int liveAfter(int offset) {
        return after[check(offset)];
    }

    /**
     * The registers live on entry to a block.
     *
     * @param block the block's index
     * @return the registers
     */
    public int liveIn(int block) {
        return blockIn[block];
    }

    /**
     * The registers live at the end of a block (what its successors and its way out need).
     *
     * @param block the block's index
     * @return the registers
     */
    public int liveOut(int block) {
        return blockOut[block];
    }

    /**
     * The registers among {@code candidates} that are dead before an instruction, in the order given.
     *
     * @param offset the instruction's offset
     * @param candidates register numbers, in order of preference
     * @return those not live there
     */
    public int[] deadBefore(int offset, int[] candidates) {
        int live = liveBefore(offset);
        return java.util.Arrays.stream(candidates).filter(r -> (live & 1 << r) == 0).toArray();
    }

    private int check(int offset) {
        if (offset < 0 || offset >= size) {
            throw new IllegalArgumentException("offset " + offset + " outside the function (size " + size + ")");
        }
        return offset;
    }
}
