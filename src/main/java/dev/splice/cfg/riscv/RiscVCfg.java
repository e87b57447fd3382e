package dev.splice.cfg.riscv;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Kind;
import dev.splice.cfg.LandingPads;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Encoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.isa.OperandException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * The basic blocks of a RISC-V function ({@link ControlFlowGraph}), decoded with the instruction
 * table ({@code dev.splice.isa}): each instruction's {@link ControlFlow} class gives its block
 * kind, with LLVM's view where it differs (below). Two views of the same rules:
 *
 * <ul>
 *   <li>perf2bolt-22's, for profile translation ({@link #of(byte[], int, int, int[], int[], int[],
 *       boolean, boolean)}): the function has no CFG if a conditional branch leaves it or a label
 *       is inside an instruction; entry points, landing pads and data references are labels;
 *       strict mode and "jump past end" as BOLT has them.
 *   <li>the write-back's and instrumentation's ({@link #of(byte[], int, int, int[])},
 *       {@link #of(ElfFile, Function)}): the function's start and its landing pads are its entry
 *       points, a conditional branch out of it is a conditional tail call (BOLT's split functions
 *       branch to their .cold fragments), a jump to its end goes to the next function.
 * </ul>
 *
 * <p>LLVM marks ebreak, the 32-bit unimp ({@code csrrw zero, cycle, zero}) and c.unimp as traps,
 * which end execution for BOLT; c.ebreak and ecall it does not, so BOLT falls through them.
 * Trap returns (mret, sret, dret) fall through here. The walk takes every parcel with low bits
 * {@code 11} as a 4-byte word (48- and 64-bit encodings do not occur in compiled code); a word
 * the table does not decode (data, a reserved encoding) falls through.
 */
public final class RiscVCfg {
    private RiscVCfg() {}

    /** The instruction table's parts this class uses, loaded on first use (about 50 ms of CPU). */
    private static final class Table {
        static final Isa ISA = Isa.rv64();
        static final Decoder DECODER = ISA.decoder(ISA.extensions());
        static final Opcode AUIPC = ISA.opcode("auipc");
        static final Opcode JALR = ISA.opcode("jalr");
        static final Opcode LD = ISA.opcode("ld");
        static final Opcode EBREAK = ISA.opcode("ebreak");
        static final Opcode C_UNIMP = ISA.opcode("c.unimp");
        /** LLVM's UNIMP: the 32-bit word GNU as writes for unimp. */
        static final int UNIMP = encode("csrrw", 0, 0xc00, 0);
        /** Per opcode id: whether the instruction can end or shape a block (jal and jalr always can). */
        static final boolean[] TRANSFERS = new boolean[ISA.opcodes().size()];

        static {
            for (Opcode op : ISA.opcodes()) {
                TRANSFERS[op.id()] = op.controlFlow(op.match()) != ControlFlow.NONE;
            }
        }

        /** Nothing: calling it initializes the class. */
        static void load() {}

        private static int encode(String mnemonic, long... values) {
            try {
                return Encoder.encode(ISA.opcode(mnemonic), values);
            } catch (OperandException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Loads the instruction table and builds the decoder this class uses, unless done already. The
     * first CFG, return or PLT query does it otherwise; a caller with other work to do first (reading
     * a binary) can run this on another thread meanwhile.
     */
    public static void loadInstructionTable() {
        Table.load();
    }

    /**
     * perf2bolt-22's CFG of the function whose bytes are {@code code[base, base + size)}.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param entries the offsets where code elsewhere branches into the function: BOLT makes them
     *     entry points, which start blocks
     * @param landingPads the offsets of its landing pads (from its LSDA): labels, and like entry
     *     points a trace into one is not moved back to the call before it
     * @param dataReferences in a binary with relocations, the offsets data relocations name (jump-table
     *     targets among them): labels
     * @param strict BOLT's strict relocation mode (perf2bolt-22 runs in it on a binary with
     *     relocations): an indirect jump in a function of several blocks that data refers into may
     *     go to any of those labels (postProcessIndirectBranches' "unknown control flow")
     * @param pastEndIsNop padding follows the function, so a direct branch, jump or call to its end
     *     is BOLT's "jump past end", a nop; without padding it goes to the next function
     * @return the graph, or null if perf2bolt builds none (a conditional branch out of the function,
     *     a label inside an instruction, bytes that end inside an instruction)
     */
    public static ControlFlowGraph of(byte[] code, int base, int size, int[] entries, int[] landingPads,
                                      int[] dataReferences, boolean strict, boolean pastEndIsNop) {
        return build(code, base, size, entries, landingPads, dataReferences, strict, pastEndIsNop, true);
    }

    /**
     * The write-back's CFG of the function whose bytes are {@code code[base, base + size)}: entered
     * at its start and its landing pads; a conditional branch out of it is a conditional tail call,
     * a jump out of it (or to its end) an exit.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param landingPads the offsets of its landing pads
     * @return the graph, or null if a label is inside an instruction or the bytes end inside one
     */
    public static ControlFlowGraph of(byte[] code, int base, int size, int[] landingPads) {
        return build(code, base, size, new int[0], landingPads, new int[0], false, false, false);
    }

    /**
     * The write-back's CFG (as {@link #of(byte[], int, int, int[])}) with more labels: offsets that
     * data refers to (jump-table targets), each a block start.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param landingPads the offsets of its landing pads
     * @param labels offsets that start blocks
     * @return the graph, or null if a label is inside an instruction or the bytes end inside one
     */
    public static ControlFlowGraph of(byte[] code, int base, int size, int[] landingPads, int[] labels) {
        return build(code, base, size, new int[0], landingPads, labels, false, false, false);
    }

    /**
     * The write-back's CFG of a function of an ELF file, with its landing pads (reads the file's
     * {@code .eh_frame} and LSDAs each call; for many functions read {@link LandingPads#of} once and
     * use {@link #of(byte[], int, int, int[])}).
     *
     * @param elf a RISC-V ELF file (BOLTed or not)
     * @param function one of its functions
     * @return the graph, or null (see {@link #of(byte[], int, int, int[])}, or no bytes)
     */
    public static ControlFlowGraph of(ElfFile elf, Function function) {
        dev.splice.elf.Section s = function.section();
        if (s == null || s.isNobits() || function.size() <= 0 || function.size() > Integer.MAX_VALUE
                || function.address() < s.address() || function.address() - s.address() > Integer.MAX_VALUE
                || function.endAddress() > s.address() + s.size()) {
            return null;
        }
        long[] pads = LandingPads.of(elf).getOrDefault(function.address(), new long[0]);
        int[] offsets = Arrays.stream(pads).filter(function::contains).mapToInt(a -> (int) (a - function.address())).toArray();
        return of(elf.contents(s), (int) (function.address() - s.address()), (int) function.size(), offsets);
    }

    private static ControlFlowGraph build(byte[] code, int base, int size, int[] entries, int[] landingPads,
                                          int[] dataReferences, boolean strict, boolean pastEndIsNop, boolean perf2bolt) {
        // In 64 bits: a forged function size near 2^31 overflowed base + size past this check.
        if (size <= 0 || base < 0 || (long) base + size > code.length) {
            return null;
        }
        Kind[] kind = new Kind[size];
        int[] target = new int[size];
        boolean[] isInstruction = new boolean[size];
        boolean[] leader = new boolean[size + 1];
        boolean[] entry = new boolean[size + 1];
        ControlFlowGraph.markEntries(leader, entry, size, entries, landingPads);
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
            int bits = length == 2 ? half
                    : half | (code[base + pc + 2] & 0xff) << 16 | (code[base + pc + 3] & 0xff) << 24;
            Opcode op = opcodeAt(code, base + pc, length, half);
            long t = Long.MIN_VALUE;
            Kind k = Kind.PLAIN;
            if (op != null && Table.TRANSFERS[op.id()]) {
                switch (op.controlFlow(bits)) {
                    case BRANCH -> k = Kind.CONDITIONAL;
                    case JUMP -> k = Kind.JUMP;
                    case CALL, INDIRECT_CALL -> k = Kind.CALL;
                    case RETURN -> k = Kind.EXIT;
                    // An indirect jump (a jump table): it ends its block. BOLT does not analyse RISC-V
                    // jump tables; their targets are labels only where data relocations name them.
                    case INDIRECT_JUMP -> {
                        k = Kind.EXIT;
                        indirect.add(pc);
                    }
                    case TRAP -> k = op == Table.EBREAK || op == Table.C_UNIMP ? Kind.TRAP : Kind.PLAIN;
                    default -> k = Kind.PLAIN;
                }
                if (op.hasBranchTarget()) {
                    t = pc + op.branchOffset(bits);
                }
            } else if (bits == Table.UNIMP) {
                k = Kind.TRAP;
            }
            if (t == size && pastEndIsNop && (k == Kind.JUMP || k == Kind.CONDITIONAL || k == Kind.CALL)) {
                k = Kind.PLAIN; // BOLT: "jump past end", replaced with a nop
            } else if ((k == Kind.JUMP || k == Kind.CONDITIONAL) && (t < 0 || t >= size)) {
                if (k == Kind.CONDITIONAL) {
                    if (perf2bolt) {
                        return null; // a conditional branch out of the function
                    }
                    k = Kind.CONDITIONAL_TAIL_CALL;
                } else {
                    k = Kind.EXIT; // a tail call
                }
            }
            kind[pc] = k;
            if (k == Kind.JUMP || k == Kind.CONDITIONAL) {
                target[pc] = (int) t;
                leader[(int) t] = true; // a label: always a block start
            } else if (k == Kind.CALL && t > 0 && t < size) {
                leader[(int) t] = true; // a call into the function's own body: BOLT makes it an entry point
                entry[(int) t] = true;
            }
            pc += length;
        }
        int[][] successors = new int[size][];
        ControlFlowGraph cfg = ControlFlowGraph.of(kind, target, isInstruction, leader, entry, successors, size);
        if (cfg == null || !strict || referenced.length == 0 || indirect.isEmpty() || cfg.blockCount() == 1) {
            return cfg; // in a single block an indirect jump is a tail call
        }
        for (int at : indirect) {
            kind[at] = Kind.INDIRECT;
            successors[at] = referenced;
        }
        return ControlFlowGraph.of(kind, target, isInstruction, leader, entry, successors, size);
    }

    /**
     * The absolute targets of the direct branches, jumps and calls (jal, c.j, conditional branches,
     * auipc+jalr pairs) in a function that leave it. A jump to the function's own end is BOLT's
     * "jump past end", no reference.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param address its address
     * @param out receives the targets
     */
    public static void externalTargets(byte[] code, int base, int size, long address, LongConsumer out) {
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
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param out receives the offsets
     */
    public static void jumpsPastEnd(byte[] code, int base, int size, IntConsumer out) {
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
        long auipcReg = -1;
        long auipcValue = 0;
        while (pc + 2 <= size && base + pc + 2 <= code.length) {
            int half = (code[base + pc] & 0xff) | (code[base + pc + 1] & 0xff) << 8;
            int length = (half & 3) == 3 ? 4 : 2;
            if (pc + length > size || base + pc + length > code.length) {
                return;
            }
            int bits = length == 2 ? half
                    : half | (code[base + pc + 2] & 0xff) << 16 | (code[base + pc + 3] & 0xff) << 24;
            Opcode op = opcodeAt(code, base + pc, length, half);
            long t = Long.MIN_VALUE;
            boolean pair = false;
            long nextAuipc = -1;
            if (op == null) {
                // not an instruction: no transfer
            } else if (op.hasBranchTarget()) {
                t = pc + op.branchOffset(bits);
            } else if (op == Table.JALR && op.operand(bits, Operand.RS1) == auipcReg) {
                t = auipcValue + op.operand(bits, Operand.IMM);
                pair = true;
            } else if (op == Table.AUIPC) {
                nextAuipc = op.operand(bits, Operand.RD);
                auipcValue = pc + upper(op, bits);
            }
            auipcReg = nextAuipc;
            if (t != Long.MIN_VALUE) {
                out.accept(pc, t, pair);
            }
            pc += length;
        }
    }

    /** The sign-extended value an auipc or lui adds: its 20-bit immediate shifted up by 12. */
    private static long upper(Opcode op, int bits) {
        return (int) (op.operand(bits, Operand.IMM) << 12);
    }

    /**
     * Whether the instruction at {@code code[at]} is a return (BOLT's MCPlusBuilder::isReturn):
     * {@code jalr zero} or {@code c.jr} through ra or t0 ({@link ControlFlow#RETURN}).
     *
     * @param code bytes of code
     * @param at where the instruction starts
     * @return true for a return
     */
    public static boolean isReturn(byte[] code, int at) {
        if (at < 0 || at + 2 > code.length) {
            return false;
        }
        int half = (code[at] & 0xff) | (code[at + 1] & 0xff) << 8;
        int length = (half & 3) == 3 ? 4 : 2;
        if (at + length > code.length) {
            return false;
        }
        int bits = length == 2 ? half : half | (code[at + 2] & 0xff) << 16 | (code[at + 3] & 0xff) << 24;
        Opcode op = opcodeAt(code, at, length, half);
        return op != null && Table.TRANSFERS[op.id()] && op.controlFlow(bits) == ControlFlow.RETURN;
    }

    /**
     * The opcode of the word of {@code length} bytes at {@code code[at]} (2 or 4, as the walk takes
     * the low bits of its first parcel {@code half}), or null: the decoder's packed tables, one or
     * two array reads for most words.
     */
    private static Opcode opcodeAt(byte[] code, int at, int length, int half) {
        if (length == 4 && (half & 0x1c) == 0x1c) {
            return null; // a 48-bit or longer (or reserved) encoding: no row of the table
        }
        return Table.DECODER.opcode(Table.DECODER.decodeAt(code, at, at + length));
    }

    /**
     * The GOT slot a PLT entry loads its target from: a 16-byte entry {@code auipc t3, hi; ld t3,
     * lo(t3); jalr t1, t3; nop} (any registers, as long as the ld's base is the auipc's
     * destination).
     *
     * @param plt the bytes of {@code .plt}
     * @param entry where the entry starts in them
     * @param address the entry's address
     * @return the slot's address, or empty if the entry does not start with such a pair
     */
    public static OptionalLong pltSlot(byte[] plt, int entry, long address) {
        if (entry < 0 || entry + 8 > plt.length) {
            return OptionalLong.empty();
        }
        int auipc = word(plt, entry);
        int ld = word(plt, entry + 4);
        Opcode first = Table.DECODER.decode(auipc, 4);
        Opcode second = Table.DECODER.decode(ld, 4);
        if (first != Table.AUIPC || second != Table.LD || second.operand(ld, Operand.RS1) != first.operand(auipc, Operand.RD)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(address + upper(first, auipc) + second.operand(ld, Operand.IMM));
    }

    private static int word(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }
}
