package dev.splice.cfg;

import dev.splice.base.LongList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The basic blocks of one function as LLVM BOLT's buildCFG forms them, whatever the ISA: the
 * decoders ({@code cfg.riscv.RiscVCfg}, {@code cfg.x86.X86Cfg}) classify each instruction by a
 * {@link Kind} and name its direct target, the labels (branch targets, entry points, landing pads,
 * jump-table targets, addresses data refers to) and the entry points, and {@link #of} applies
 * BOLT's rules: a block starts at a label and after a terminator, except that a direct jump right
 * after a conditional branch or a trap joins its block (which then ends "branch; jump" with both
 * targets as successors); calls do not end blocks.
 *
 * <p>Offsets are bytes from the function's start. A graph answers two kinds of questions:
 *
 * <ul>
 *   <li>the program's structure, for the write-back and instrumentation: {@link #blocks()} with
 *       their instructions, successors (taken and fall-through), how they end, and
 *       {@link #loopHeads()};
 *   <li>perf2bolt's reading of a profile: {@link #fallthroughs} (DataAggregator's
 *       getFallthroughsInTrace), {@link #fallsThrough(int)}, {@link #isInstructionStart}.
 * </ul>
 */
public final class ControlFlowGraph {
    /** How an instruction ends or does not end its block, as BOLT's CFG sees it. */
    public enum Kind {
        /** Falls through to the next instruction (and anything the CFG does not follow). */
        PLAIN,
        /** A conditional branch to a target inside the function. */
        CONDITIONAL,
        /** An unconditional jump to a target inside the function. */
        JUMP,
        /**
         * Leaves the function: a return, a tail call (a jump out of the function), or an indirect
         * jump without known successors.
         */
        EXIT,
        /** A call (direct or indirect): execution continues after it; it does not end its block. */
        CALL,
        /** A trap BOLT takes as the end of execution; a direct jump right after it joins its block. */
        TRAP,
        /**
         * x86-64 only: a conditional branch out of the function (a conditional tail call): it ends
         * its block, which falls through, and has no target inside. (RISC-V: a function with one
         * has no CFG for perf2bolt; the write-back's lenient graphs use this kind for it too.)
         */
        CONDITIONAL_TAIL_CALL,
        /**
         * An indirect jump with known successors: on x86-64 a jump through a table BOLT read (its
         * targets); in perf2bolt's strict mode, on either ISA, one of unknown control flow (every
         * label data refers to).
         */
        INDIRECT
    }

    private final int size;
    private final BitSet instructionStarts;
    // Per block, in address order.
    private final int[] starts;
    private final int[] lastInstruction;
    /** perf2bolt's trace rule: a range may cross from this block into the next. */
    private final boolean[] fallsThrough;
    private final boolean[] endsWithCall;
    private final boolean[] entryPoint;
    private final Kind[] endKind;
    /** The direct target offset of the last instruction (JUMP, CONDITIONAL), else -1. */
    private final int[] endTarget;
    /** The target of a conditional branch before a final jump ("branch; jump"), else -1. */
    private final int[] branchTarget;
    /** The successors of a final INDIRECT jump, else null. */
    private final int[][] endTable;
    /** The blocks, built on first use of the structural API. */
    private List<Block> blocks;
    private int[] loopHeads;

    private ControlFlowGraph(int size, BitSet instructionStarts, int[] starts, int[] lastInstruction, boolean[] fallsThrough,
                             boolean[] endsWithCall, boolean[] entryPoint, Kind[] endKind, int[] endTarget,
                             int[] branchTarget, int[][] endTable) {
        this.size = size;
        this.instructionStarts = instructionStarts;
        this.starts = starts;
        this.lastInstruction = lastInstruction;
        this.fallsThrough = fallsThrough;
        this.endsWithCall = endsWithCall;
        this.entryPoint = entryPoint;
        this.endKind = endKind;
        this.endTarget = endTarget;
        this.branchTarget = branchTarget;
        this.endTable = endTable;
    }

    /**
     * Marks the function's start and the given offsets (code elsewhere branches there, or landing
     * pads) as labels and entry points, in the arrays {@link #of} takes; offsets outside the
     * function are ignored.
     *
     * @param leader per offset, whether it is a label (size + 1 entries)
     * @param entry per offset, whether it is an entry point (size + 1 entries)
     * @param size the function's size in bytes
     * @param offsets lists of entry-point offsets
     */
    public static void markEntries(boolean[] leader, boolean[] entry, int size, int[]... offsets) {
        leader[0] = true;
        entry[0] = true;
        for (int[] list : offsets) {
            for (int e : list) {
                if (e > 0 && e < size) {
                    leader[e] = true;
                    entry[e] = true;
                }
            }
        }
    }

    /**
     * The blocks BOLT's buildCFG forms from a decoded function (shared by the RISC-V and x86-64
     * decoders). Per byte offset: the kind and direct target of the instruction starting there,
     * whether one starts there, whether it is a label (a block start: branch targets, jump-table
     * targets, entry points, landing pads), whether it is an entry point (entries and landing pads
     * only; see {@link #fallthroughs}), and for an {@link Kind#INDIRECT} jump the offsets of its
     * successors.
     *
     * @param kind per offset, the kind of the instruction starting there (null or anything where none does)
     * @param target per offset, the direct target of a JUMP or CONDITIONAL there
     * @param isInstruction per offset, whether an instruction starts there
     * @param leader per offset, whether it is a label
     * @param entry per offset, whether it is an entry point
     * @param tableTargets per offset, the successors of an INDIRECT jump there (else null)
     * @param size the function's size in bytes
     * @return the graph, or null if a label is inside an instruction
     */
    public static ControlFlowGraph of(Kind[] kind, int[] target, boolean[] isInstruction, boolean[] leader,
                                      boolean[] entry, int[][] tableTargets, int size) {
        for (int i = 0; i < size; i++) {
            if (leader[i] && !isInstruction[i]) {
                return null; // a branch into the middle of an instruction
            }
        }
        boolean[] starts = new boolean[size];
        int previous = -1;
        for (int i = 0; i < size; i++) {
            if (!isInstruction[i]) {
                continue;
            }
            if (leader[i] || previous < 0) {
                starts[i] = true;
            } else if (endsBlock(kind[previous])) {
                // BOLT: an unconditional branch after a terminator that is not itself a branch, a
                // return or a conditional tail call (a conditional branch, or a trap) joins its block.
                starts[i] = !(kind[i] == Kind.JUMP && (kind[previous] == Kind.CONDITIONAL || kind[previous] == Kind.TRAP));
            }
            previous = i;
        }
        int blocks = 0;
        for (boolean x : starts) {
            if (x) {
                blocks++;
            }
        }
        int[] blockStarts = new int[blocks];
        int[] last = new int[blocks];
        int[] lastBranch = new int[blocks]; // a conditional branch before the final jump, or -1
        int b = -1;
        for (int i = 0; i < size; i++) {
            if (!isInstruction[i]) {
                continue;
            }
            if (starts[i]) {
                blockStarts[++b] = i;
                lastBranch[b] = -1;
            } else if (kind[last[b]] == Kind.CONDITIONAL) {
                lastBranch[b] = last[b];
            }
            last[b] = i;
        }
        boolean[] falls = new boolean[blocks];
        boolean[] call = new boolean[blocks];
        boolean[] entryBlock = new boolean[blocks];
        Kind[] endKind = new Kind[blocks];
        int[] endTarget = new int[blocks];
        int[] branchTarget = new int[blocks];
        int[][] endTable = new int[blocks][];
        for (b = 0; b < blocks; b++) {
            entryBlock[b] = entry[blockStarts[b]];
            int end = last[b];
            Kind k = kind[end] == null ? Kind.PLAIN : kind[end];
            int next = b + 1 < blocks ? blockStarts[b + 1] : -1;
            falls[b] = switch (k) {
                case PLAIN, CALL -> true;
                case CONDITIONAL, CONDITIONAL_TAIL_CALL -> true;
                case JUMP -> next >= 0 && (target[end] == next || (lastBranch[b] >= 0 && target[lastBranch[b]] == next));
                // perf2bolt takes a trace across when the next block is one of the jump's successors.
                case INDIRECT -> next >= 0 && tableTargets[end] != null && Arrays.stream(tableTargets[end]).anyMatch(t -> t == next);
                default -> false;
            };
            // BOLT's isCall includes tail calls: a conditional one (x86-64) ends a call block too.
            call[b] = k == Kind.CALL || k == Kind.CONDITIONAL_TAIL_CALL;
            endKind[b] = k;
            endTarget[b] = k == Kind.JUMP || k == Kind.CONDITIONAL ? target[end] : -1;
            branchTarget[b] = lastBranch[b] >= 0 ? target[lastBranch[b]] : -1;
            endTable[b] = k == Kind.INDIRECT ? tableTargets[end] : null;
        }
        BitSet instructionStarts = new BitSet(size);
        for (int i = 0; i < size; i++) {
            if (isInstruction[i]) {
                instructionStarts.set(i);
            }
        }
        return new ControlFlowGraph(size, instructionStarts, blockStarts, last, falls, call, entryBlock, endKind,
                endTarget, branchTarget, endTable);
    }

    private static boolean endsBlock(Kind k) {
        return k == Kind.CONDITIONAL || k == Kind.JUMP || k == Kind.EXIT || k == Kind.CONDITIONAL_TAIL_CALL
                || k == Kind.TRAP || k == Kind.INDIRECT;
    }

    /** {@return the function's size in bytes} */
    public int size() {
        return size;
    }

    /**
     * Whether an instruction starts at an offset, as the function was decoded from its start.
     *
     * @param offset a byte offset in the function
     * @return true at an instruction start
     */
    public boolean isInstructionStart(long offset) {
        return offset >= 0 && offset < size && instructionStarts.get((int) offset);
    }

    /** {@return the block start offsets, ascending (a new array)} */
    public int[] blockStarts() {
        return starts.clone();
    }

    /** {@return the number of blocks} */
    public int blockCount() {
        return starts.length;
    }

    /**
     * Whether perf2bolt takes a trace from block {@code b} into the next one: the block falls
     * through, or ends in a jump (or a jump table) one of whose targets is the next block.
     *
     * @param b a block index
     * @return true if a fall-through range may cross from it into the next block
     */
    public boolean fallsThrough(int b) {
        return fallsThrough[b];
    }

    private int blockContaining(long offset) {
        int i = Arrays.binarySearch(starts, (int) Math.min(offset, Integer.MAX_VALUE));
        return i >= 0 ? i : -i - 2;
    }

    /**
     * The fall-through edges (offset of a block's last instruction, offset of the next block) of a
     * range in the function, in perf2bolt's way, into {@code out} as pairs.
     *
     * @param from the range's start offset
     * @param to the range's end offset
     * @param fromOutside the range follows a branch from outside the function (not a pre-aggregated
     *     F record), whose target may be the return address after a call that ends the previous block
     * @param isReturn that branch is a return
     * @param out receives the pairs
     * @return the number of edges, or -1 if the range is invalid (it crosses a block that does not
     *     fall through)
     */
    public int fallthroughs(long from, long to, boolean fromOutside, boolean isReturn, LongList out) {
        if (from > to || from < 0) {
            return -1;
        }
        int fromBlock = blockContaining(from);
        int toBlock = blockContaining(to);
        // BOLT's getBasicBlockContainingOffset: no block holds the function's end offset.
        if (fromBlock < 0 || toBlock < 0 || to >= size) {
            return -1;
        }
        if (fromOutside && from == starts[fromBlock] && fromBlock > 0 && (isReturn || !entryPoint[fromBlock])
                && fallsThrough[fromBlock - 1] && endsWithCall[fromBlock - 1]) {
            fromBlock--;
        }
        int n = 0;
        for (int b = fromBlock; b < toBlock; b++) {
            if (!fallsThrough[b]) {
                return -1;
            }
            out.add(lastInstruction[b]);
            out.add(starts[b + 1]);
            n++;
        }
        return n;
    }

    /**
     * One basic block: its instructions, how it ends and where control goes next (the lists are
     * unmodifiable).
     *
     * @param index its position in {@link #blocks()} (address order)
     * @param start the offset of its first instruction
     * @param end the offset after its last instruction (the next block's start, or the function's size)
     * @param instructions the offsets of its instructions, ascending
     * @param kind the kind of its last instruction: {@link Kind#CALL} for a block ending in a call
     *     (calls end blocks only where the return address is a label), {@link Kind#EXIT} for one
     *     ending in a return or a tail call
     * @param taken the blocks its branches and jumps go to (a conditional branch's target, a jump's,
     *     both for "branch; jump", a jump table's targets), ascending, without duplicates
     * @param fallThrough the next block if execution runs into it from the last instruction without
     *     a jump (after a plain instruction, a call or a not-taken conditional branch), else -1
     * @param entryPoint whether the block is entered from outside: the function's start, a
     *     secondary entry point or a landing pad
     */
    public record Block(int index, int start, int end, List<Integer> instructions, Kind kind, List<Integer> taken,
                        int fallThrough, boolean entryPoint) {
        /** {@return the successor blocks: the taken ones, then the fall-through block, without duplicates} */
        public List<Integer> successors() {
            if (fallThrough < 0 || taken.contains(fallThrough)) {
                return taken;
            }
            List<Integer> all = new ArrayList<>(taken);
            all.add(fallThrough);
            return List.copyOf(all);
        }

        /** {@return whether control leaves the function at its end: a return, a tail call, an unknown indirect jump} */
        public boolean exits() {
            return kind == Kind.EXIT;
        }
    }

    /**
     * The blocks in address order (built on the first call, then kept).
     *
     * @return the blocks
     */
    public synchronized List<Block> blocks() {
        if (blocks == null) {
            List<Block> out = new ArrayList<>(starts.length);
            for (int b = 0; b < starts.length; b++) {
                int end = b + 1 < starts.length ? starts[b + 1] : size;
                List<Integer> instructions = new ArrayList<>();
                for (int i = instructionStarts.nextSetBit(starts[b]); i >= 0 && i < end; i = instructionStarts.nextSetBit(i + 1)) {
                    instructions.add(i);
                }
                java.util.TreeSet<Integer> taken = new java.util.TreeSet<>();
                if (endTarget[b] >= 0) {
                    taken.add(blockContaining(endTarget[b]));
                }
                if (endKind[b] == Kind.JUMP && branchTarget[b] >= 0) {
                    taken.add(blockContaining(branchTarget[b]));
                }
                if (endTable[b] != null) {
                    for (int t : endTable[b]) {
                        taken.add(blockContaining(t));
                    }
                }
                Kind k = endKind[b];
                boolean runsOn = k == Kind.PLAIN || k == Kind.CALL || k == Kind.CONDITIONAL || k == Kind.CONDITIONAL_TAIL_CALL;
                int fallThrough = runsOn && b + 1 < starts.length ? b + 1 : -1;
                out.add(new Block(b, starts[b], end, List.copyOf(instructions), k, List.copyOf(taken), fallThrough, entryPoint[b]));
            }
            blocks = List.copyOf(out);
        }
        return blocks;
    }

    /**
     * The index of the block holding an offset.
     *
     * @param offset a byte offset in the function
     * @return the block's index, or -1 outside the function
     */
    public int blockIndexAt(long offset) {
        return offset < 0 || offset >= size ? -1 : blockContaining(offset);
    }

    /**
     * The loop heads: the blocks that are the target of a back edge, an edge from a block they
     * dominate (the natural loops of LLVM's LoopInfo, on which BOLT's BinaryLoopInfo is built).
     * Dominance is over the blocks reachable from the entry points (the start, secondary entry
     * points, landing pads), as if one root entered them all; unreachable blocks head no loop.
     * Dominators, unlike a depth-first search's back edges, do not depend on the order the
     * successors are visited in; a cycle entered at two places (irreducible) has no head.
     *
     * @return the loop heads' block indices, ascending
     */
    public synchronized int[] loopHeads() {
        if (loopHeads == null) {
            loopHeads = Dominators.loopHeads(blocks());
        }
        return loopHeads.clone();
    }
}
