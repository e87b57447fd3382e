package dev.splice.cfg;

import dev.splice.base.LongList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The basic blocks of a RISC-V function without a translation table, as perf2bolt-22 builds them
 * from its disassembly, for one purpose: turning a fall-through range in such a function into the
 * edges between the blocks it crosses (DataAggregator::getFallthroughsInTrace). Only what decides
 * block boundaries and fall-through is decoded: branches, jumps, returns, indirect jumps, traps;
 * the caller adds the entry points and landing pads (from the LSDA), which also start blocks.
 * A conditional branch out of the function, or a label inside an instruction, leaves it without a
 * CFG. The few control-flow encodings are decoded here rather than through {@code dev.splice.isa}:
 * {@code bat} depends only on {@code elf} (DESIGN.md), so that it serves x86-64 BOLT outputs too.
 */
public final class RiscVCfg {
    // Per block, in address order: start offset, offset of its last instruction, and whether the
    // next block is its successor by falling through.
    private final int[] starts;
    private final int[] lastInstruction;
    private final boolean[] fallsThrough;
    private final boolean[] endsWithCall;
    private final boolean[] entryPoint;
    private final java.util.BitSet instructionStarts;
    private final int size;

    private RiscVCfg(int[] starts, int[] lastInstruction, boolean[] fallsThrough, boolean[] endsWithCall,
                     boolean[] entryPoint, java.util.BitSet instructionStarts, int size) {
        this.size = size;
        this.instructionStarts = instructionStarts;
        this.entryPoint = entryPoint;
        this.starts = starts;
        this.lastInstruction = lastInstruction;
        this.fallsThrough = fallsThrough;
        this.endsWithCall = endsWithCall;
    }

    public static final int PLAIN = 0;
    public static final int CONDITIONAL = 1;
    public static final int JUMP = 2;
    public static final int STOP = 3; // return or tail call: no successor in the function
    public static final int CALL = 4;
    public static final int INDIRECT = 5;
    public static final int CONDITIONAL_TAIL_CALL = 6; // x86-64: ends its block, falls through, no target inside
    public static final int TRAP = 7; // as STOP, but a direct jump right after it joins its block (buildCFG)
    public static final int INDIRECT_TABLE = 8; // x86-64: a jump through a table; its successors are the table's targets

    /** The CFG of the function whose bytes are {@code code[base, base + size)}, or null if it has none. */
    public static RiscVCfg of(byte[] code, int base, int size) {
        return of(code, base, size, new int[0]);
    }

    /**
     * As above, with the offsets where code elsewhere branches into the function: BOLT makes them
     * entry points, which start blocks.
     */
    public static RiscVCfg of(byte[] code, int base, int size, int[] entries) {
        return of(code, base, size, entries, new int[0]);
    }

    /**
     * As above, with the offsets of the function's landing pads (from its LSDA): BOLT makes them
     * labels, which start blocks, and, like entry points, a trace into one is not moved back to
     * the call before it.
     */
    public static RiscVCfg of(byte[] code, int base, int size, int[] entries, int[] landingPads) {
        return of(code, base, size, entries, landingPads, new int[0], false, true);
    }

    /**
     * As above, in a binary with relocations: {@code dataReferences}, the offsets that data
     * relocations name (jump-table targets among them), are labels; and with {@code strict} (BOLT's
     * strict relocation mode, as perf2bolt-22 runs on such a binary) an indirect jump in a function
     * of several blocks that data refers into may go to any of those labels
     * (postProcessIndirectBranches' "unknown control flow"). {@code pastEndIsNop}: padding follows
     * the function, so a direct branch, jump or call to its end is BOLT's "jump past end", a nop;
     * without padding it goes to the next function.
     */
    public static RiscVCfg of(byte[] code, int base, int size, int[] entries, int[] landingPads, int[] dataReferences,
                       boolean strict, boolean pastEndIsNop) {
        if (size <= 0 || base < 0 || base + size > code.length) {
            return null;
        }
        int[] kind = new int[size];
        int[] target = new int[size];
        boolean[] isInstruction = new boolean[size];
        boolean[] leader = new boolean[size + 1];
        boolean[] entry = new boolean[size + 1];
        leader[0] = true;
        entry[0] = true;
        for (int e : concat(entries, landingPads)) {
            if (e > 0 && e < size) {
                leader[e] = true;
                entry[e] = true;
            }
        }
        int[] referenced = Arrays.stream(dataReferences).filter(r -> r > 0 && r < size).sorted().distinct().toArray();
        for (int r : referenced) {
            leader[r] = true;
        }
        List<Integer> indirect = new ArrayList<>();
        int pc = 0;
        while (pc < size) {
            if (pc + 2 > size) {
                return null;
            }
            int half = (code[base + pc] & 0xff) | (code[base + pc + 1] & 0xff) << 8;
            int length = (half & 3) == 3 ? 4 : 2;
            if (pc + length > size) {
                return null;
            }
            isInstruction[pc] = true;
            long t = Long.MIN_VALUE;
            int k = PLAIN;
            if (length == 4) {
                int word = half | (code[base + pc + 2] & 0xff) << 16 | (code[base + pc + 3] & 0xff) << 24;
                int opcode = word & 0x7f;
                int rd = (word >>> 7) & 31;
                int rs1 = (word >>> 15) & 31;
                if (opcode == 0x63) {
                    int imm = branchOffset(word);
                    k = CONDITIONAL;
                    t = pc + (long) imm;
                } else if (opcode == 0x6f) {
                    int imm = jalOffset(word);
                    k = rd == 0 ? JUMP : CALL;
                    t = pc + (long) imm;
                } else if (opcode == 0x67) {
                    k = rd != 0 ? CALL : (rs1 == 1 || rs1 == 5) ? STOP : INDIRECT;
                } else if (word == 0x00100073 || word == 0xc0001073) {
                    k = TRAP; // ebreak, unimp: BOLT takes traps as the end of execution
                }
            } else {
                int op = half & 3;
                int funct3 = half >>> 13;
                if (op == 1 && funct3 == 5) { // c.j
                    int imm = cjOffset(half);
                    k = JUMP;
                    t = pc + (long) imm;
                } else if (op == 1 && (funct3 == 6 || funct3 == 7)) { // c.beqz, c.bnez
                    int imm = cbOffset(half);
                    k = CONDITIONAL;
                    t = pc + (long) imm;
                } else if (op == 2 && funct3 == 4 && ((half >>> 2) & 31) == 0 && ((half >>> 7) & 31) != 0) {
                    int rs1 = (half >>> 7) & 31;
                    boolean link = ((half >>> 12) & 1) != 0;
                    k = link ? CALL : (rs1 == 1 || rs1 == 5) ? STOP : INDIRECT;
                } else if (half == 0) {
                    k = TRAP; // c.unimp (LLVM marks it a trap; c.ebreak it does not, so BOLT falls through it)
                }
            }
            if (k == INDIRECT) {
                // An indirect jump (a jump table): it ends its block. BOLT does not analyse RISC-V
                // jump tables; their targets are labels only where data relocations name them.
                k = STOP;
                indirect.add(pc);
            }
            if (t == size && pastEndIsNop && (k == JUMP || k == CONDITIONAL || k == CALL)) {
                k = PLAIN; // BOLT: "jump past end", replaced with a nop
            } else if ((k == JUMP || k == CONDITIONAL) && (t < 0 || t >= size)) {
                if (k == CONDITIONAL) {
                    return null; // a conditional branch out of the function
                }
                k = STOP; // a tail call
            }
            kind[pc] = k;
            if (k == JUMP || k == CONDITIONAL) {
                target[pc] = (int) t;
                leader[(int) t] = true; // a label: always a block start
            } else if (k == CALL && t > 0 && t < size) {
                leader[(int) t] = true; // a call into the function's own body: BOLT makes it an entry point
                entry[(int) t] = true;
            }
            pc += length;
        }
        RiscVCfg cfg = fromDecoded(kind, target, isInstruction, leader, entry, size);
        if (cfg == null || !strict || referenced.length == 0 || indirect.isEmpty() || cfg.blockStarts().length == 1) {
            return cfg; // in a single block an indirect jump is a tail call
        }
        int[][] successors = new int[size][];
        for (int at : indirect) {
            kind[at] = INDIRECT_TABLE;
            successors[at] = referenced;
        }
        return fromDecoded(kind, target, isInstruction, leader, entry, successors, size);
    }

    /** As below, for code without jump tables. */
    public static RiscVCfg fromDecoded(int[] kind, int[] target, boolean[] isInstruction, boolean[] leader,
                                boolean[] entry, int size) {
        return fromDecoded(kind, target, isInstruction, leader, entry, new int[size][], size);
    }

    /**
     * The blocks BOLT's buildCFG forms from a decoded function (shared by the RISC-V and x86-64
     * decoders): per byte offset, the instruction kind (PLAIN, CONDITIONAL, JUMP, STOP, CALL, ...)
     * and direct target of the instruction starting there, whether one starts there, whether it is
     * a label (block start: branch targets, jump-table targets, entry points, landing pads), and
     * whether it is an entry point (entries and landing pads only; see {@link #fallthroughs}); for
     * an INDIRECT_TABLE jump, the offsets of its table's targets. Null if a label is inside an
     * instruction.
     */
    public static RiscVCfg fromDecoded(int[] kind, int[] target, boolean[] isInstruction, boolean[] leader,
                                boolean[] entry, int[][] tableTargets, int size) {
        for (int i = 0; i < size; i++) {
            if (leader[i] && !isInstruction[i]) {
                return null; // a branch into the middle of an instruction
            }
        }
        // Blocks as BOLT's buildCFG forms them: a block starts at a label, and after a terminator,
        // except that a direct jump right after a conditional branch joins its block (the block then
        // ends "branch; jump", with both targets as successors).
        boolean[] starts = new boolean[size];
        int previous = -1;
        for (int i = 0; i < size; i++) {
            if (!isInstruction[i]) {
                continue;
            }
            if (leader[i] || previous < 0) {
                starts[i] = true;
            } else if (kind[previous] == CONDITIONAL || kind[previous] == JUMP || kind[previous] == STOP
                    || kind[previous] == CONDITIONAL_TAIL_CALL || kind[previous] == TRAP || kind[previous] == INDIRECT_TABLE) {
                // BOLT: an unconditional branch after a terminator that is not itself a branch, a
                // return or a conditional tail call (a conditional branch, or a trap) joins its block.
                starts[i] = !(kind[i] == JUMP && (kind[previous] == CONDITIONAL || kind[previous] == TRAP));
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
            } else if (kind[last[b]] == CONDITIONAL) {
                lastBranch[b] = last[b];
            }
            last[b] = i;
        }
        boolean[] falls = new boolean[blocks];
        boolean[] call = new boolean[blocks];
        boolean[] entryBlock = new boolean[blocks];
        for (b = 0; b < blocks; b++) {
            entryBlock[b] = entry[blockStarts[b]];
            int end = last[b];
            int next = b + 1 < blocks ? blockStarts[b + 1] : -1;
            falls[b] = switch (kind[end]) {
                case PLAIN, CALL -> true;
                case CONDITIONAL, CONDITIONAL_TAIL_CALL -> true;
                case JUMP -> next >= 0 && (target[end] == next || (lastBranch[b] >= 0 && target[lastBranch[b]] == next));
                // perf2bolt takes a trace across when the next block is one of the jump's successors.
                case INDIRECT_TABLE -> next >= 0 && tableTargets[end] != null && Arrays.stream(tableTargets[end]).anyMatch(t -> t == next);
                default -> false;
            };
            // BOLT's isCall includes tail calls: a conditional one (x86-64) ends a call block too.
            call[b] = kind[end] == CALL || kind[end] == CONDITIONAL_TAIL_CALL;
        }
        java.util.BitSet instructionStarts = new java.util.BitSet(size);
        for (int i = 0; i < size; i++) {
            if (isInstruction[i]) {
                instructionStarts.set(i);
            }
        }
        return new RiscVCfg(blockStarts, last, falls, call, entryBlock, instructionStarts, size);
    }

    /**
     * The absolute targets of the direct branches, jumps and calls (jal, c.j, conditional branches,
     * auipc+jalr pairs) in {@code code[base, base + size)} at {@code address} that leave it. A jump
     * to the function's own end is BOLT's "jump past end", no reference.
     */
    public static void externalTargets(byte[] code, int base, int size, long address, java.util.function.LongConsumer out) {
        directTransfers(code, base, size, (pc, t, pair) -> {
            if (t < 0 || t > size) {
                out.accept(address + t);
            }
        });
    }

    /**
     * The offsets of the direct branches, jumps and calls (not auipc+jalr pairs) whose target is the
     * function's end: BOLT's "jump past end", which it replaces with a nop when padding follows the
     * function (its end is before its max end).
     */
    public static void jumpsPastEnd(byte[] code, int base, int size, java.util.function.IntConsumer out) {
        directTransfers(code, base, size, (pc, t, pair) -> {
            if (t == size && !pair) {
                out.accept(pc);
            }
        });
    }

    /** One direct control transfer: at offset {@code pc}, to offset {@code target}; {@code pair}: auipc+jalr. */
    private interface Transfer {
        void accept(int pc, long target, boolean pair);
    }

    private static void directTransfers(byte[] code, int base, int size, Transfer out) {
        int pc = 0;
        int auipcReg = -1;
        long auipcValue = 0;
        while (pc + 2 <= size && base + pc + 2 <= code.length) {
            int half = (code[base + pc] & 0xff) | (code[base + pc + 1] & 0xff) << 8;
            int length = (half & 3) == 3 ? 4 : 2;
            if (pc + length > size || base + pc + length > code.length) {
                return;
            }
            long t = Long.MIN_VALUE;
            boolean pair = false;
            int nextAuipc = -1;
            if (length == 4) {
                int word = half | (code[base + pc + 2] & 0xff) << 16 | (code[base + pc + 3] & 0xff) << 24;
                int opcode = word & 0x7f;
                int rd = (word >>> 7) & 31;
                int rs1 = (word >>> 15) & 31;
                if (opcode == 0x63) {
                    t = pc + (long) branchOffset(word);
                } else if (opcode == 0x6f) {
                    t = pc + (long) jalOffset(word);
                } else if (opcode == 0x67 && rs1 == auipcReg) {
                    t = auipcValue + (word >> 20);
                    pair = true;
                } else if (opcode == 0x17) {
                    nextAuipc = rd;
                    auipcValue = pc + (long) (word & 0xfffff000);
                }
            } else {
                int op = half & 3;
                int funct3 = half >>> 13;
                if (op == 1 && funct3 == 5) {
                    t = pc + (long) cjOffset(half);
                } else if (op == 1 && (funct3 == 6 || funct3 == 7)) {
                    t = pc + (long) cbOffset(half);
                }
            }
            auipcReg = nextAuipc;
            if (t != Long.MIN_VALUE) {
                out.accept(pc, t, pair);
            }
            pc += length;
        }
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** The B-type immediate (conditional branch offset) of a 32-bit word. */
    private static int branchOffset(int word) {
        return ((word >> 31) << 12) | ((word >>> 7) & 1) << 11 | ((word >>> 25) & 0x3f) << 5 | ((word >>> 8) & 0xf) << 1;
    }

    /** The J-type immediate (jal offset) of a 32-bit word. */
    private static int jalOffset(int word) {
        return ((word >> 31) << 20) | ((word >>> 12) & 0xff) << 12 | ((word >>> 20) & 1) << 11 | ((word >>> 21) & 0x3ff) << 1;
    }

    private static int cjOffset(int h) {
        int imm = ((h >>> 12) & 1) << 11 | ((h >>> 11) & 1) << 4 | ((h >>> 9) & 3) << 8 | ((h >>> 8) & 1) << 10
                | ((h >>> 7) & 1) << 6 | ((h >>> 6) & 1) << 7 | ((h >>> 3) & 7) << 1 | ((h >>> 2) & 1) << 5;
        return (imm << 20) >> 20;
    }

    private static int cbOffset(int h) {
        int imm = ((h >>> 12) & 1) << 8 | ((h >>> 10) & 3) << 3 | ((h >>> 5) & 3) << 6 | ((h >>> 3) & 3) << 1 | ((h >>> 2) & 1) << 5;
        return (imm << 23) >> 23;
    }

    /** The block start offsets, ascending. */
    /** Whether an instruction of the function starts at this offset, as it was decoded from its start. */
    public boolean isInstructionStart(long offset) {
        return offset >= 0 && offset < size && instructionStarts.get((int) offset);
    }

    public int[] blockStarts() {
        return starts.clone();
    }

    /** Whether block {@code b} (by index) falls through to the next. */
    public boolean fallsThrough(int b) {
        return fallsThrough[b];
    }

    private int blockContaining(long offset) {
        int i = Arrays.binarySearch(starts, (int) Math.min(offset, Integer.MAX_VALUE));
        return i >= 0 ? i : -i - 2;
    }

    /**
     * The fall-through edges (offset of a block's last instruction, offset of the next block) of a
     * range in the function, in perf2bolt's way, into {@code out} as pairs; -1 if the range is
     * invalid (it crosses a block that does not fall through). {@code fromOutside}: the range
     * follows a branch from outside the function (not a pre-aggregated F record), whose target may
     * be the return address after a call that ends the previous block.
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
}
