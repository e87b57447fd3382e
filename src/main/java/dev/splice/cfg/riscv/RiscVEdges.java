package dev.splice.cfg.riscv;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Kind;
import dev.splice.cfg.EdgeProfileException;
import dev.splice.cfg.FunctionEdges;
import dev.splice.cfg.LandingPads;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import java.util.Arrays;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * The edge-counter network ({@link FunctionEdges}) of a RISC-V function: its write-back CFG
 * ({@link RiscVCfg#of(ElfFile, Function)}) and, from the instruction table, each instruction's
 * kind, its call target (jal, or an auipc+jalr pair), and where a counter of its executions can go
 * (before the auipc of an auipc+jalr pair, since nothing may be inserted inside a pair). A block
 * with an ecall may stop there (exit, exit_group, execve), as one with a call may.
 */
public final class RiscVEdges {
    private RiscVEdges() {}

    private static final class Table {
        static final Isa ISA = Isa.rv64();
        static final Decoder DECODER = ISA.decoder(ISA.extensions());
        static final Opcode AUIPC = ISA.opcode("auipc");
        static final Opcode ECALL = ISA.opcode("ecall");
    }

    /**
     * What the networks of a binary's functions share, read once.
     *
     * @param elf the binary
     * @param dataReferences the code addresses data relocations name ({@link RiscVDataReferences#of}), sorted
     * @param landingPads per function start, its landing pads' addresses ({@link LandingPads#of})
     */
    public record Binary(ElfFile elf, long[] dataReferences, Map<Long, long[]> landingPads) {
        /**
         * Reads what the networks need from a binary.
         *
         * @param elf a RISC-V binary
         * @return its shared parts
         */
        public static Binary of(ElfFile elf) {
            return new Binary(elf, RiscVDataReferences.of(elf), LandingPads.of(elf));
        }
    }

    /**
     * The network of one function, with counters chosen. Data references into the function (its
     * jump tables' targets, with --emit-relocs) start blocks; an indirect jump (not a return, not
     * an auipc+jalr pair) in a function data refers into gets an edge to each of them, which
     * carries no counter, as perf2bolt's strict mode has it; without such references an indirect
     * jump is a tail call.
     *
     * @param binary the binary's shared parts
     * @param function one of its functions
     * @param insertable whether a fragment may precede the instruction at an offset of the function
     *     (the write-back's rules: not inside a pc-relative pair or an lr/sc sequence)
     * @return the network
     * @throws EdgeProfileException if its edges cannot be counted exactly: no CFG, or edges that
     *     cannot carry a counter in a cycle
     */
    public static FunctionEdges of(Binary binary, Function function, IntPredicate insertable) {
        ElfFile elf = binary.elf();
        String where = function.name() + " at 0x" + Long.toHexString(function.address());
        dev.splice.elf.Section section = function.section();
        if (section == null || section.isNobits() || function.size() <= 0 || function.address() < section.address()
                || function.endAddress() > section.address() + section.size()) {
            throw new EdgeProfileException(where + ": no code bytes");
        }
        byte[] code = elf.contents(section);
        int base = (int) (function.address() - section.address());
        int size = (int) function.size();
        int[] labels = labels(binary, function);
        ControlFlowGraph cfg = cfg(binary, function);
        if (cfg == null) {
            throw new EdgeProfileException(where + ": no control-flow graph (a label inside an instruction)");
        }
        int[][] indirectTargets = new int[size][];
        boolean[] mayStop = new boolean[size];
        Kind[] kind = new Kind[size];
        int[] target = new int[size];
        long[] callTarget = new long[size];
        int[] probeAt = new int[size];
        boolean[] canInsert = new boolean[size + 1];
        Arrays.fill(probeAt, -1);
        Arrays.fill(callTarget, -1);
        int auipcAt = -1;
        long auipcReg = -1;
        long auipcValue = 0;
        int pc = 0;
        while (pc < size) {
            int packed = Table.DECODER.decodeAt(code, base + pc, base + size);
            int length = Decoder.size(packed);
            Opcode op = Table.DECODER.opcode(packed);
            int bits = word(code, base + pc, length);
            canInsert[pc] = insertable.test(pc);
            probeAt[pc] = canInsert[pc] ? pc : -1;
            kind[pc] = Kind.PLAIN;
            long nextAuipcReg = -1;
            if (op != null) {
                ControlFlow flow = op.controlFlow(bits);
                boolean paired = op.has(Operand.RS1) && op.operand(bits, Operand.RS1) == auipcReg
                        && (flow == ControlFlow.CALL || flow == ControlFlow.INDIRECT_CALL || flow == ControlFlow.INDIRECT_JUMP);
                long pairTarget = paired ? auipcValue + op.operand(bits, Operand.IMM) : -1;
                if (paired) {
                    probeAt[pc] = canInsert[auipcAt] ? auipcAt : -1;
                }
                switch (flow) {
                    case BRANCH -> {
                        long t = pc + op.branchOffset(bits);
                        kind[pc] = t >= 0 && t < size ? Kind.CONDITIONAL : Kind.CONDITIONAL_TAIL_CALL;
                        target[pc] = (int) t;
                    }
                    case JUMP -> {
                        long t = pc + op.branchOffset(bits);
                        kind[pc] = t >= 0 && t < size ? Kind.JUMP : Kind.EXIT;
                        target[pc] = (int) t;
                    }
                    case CALL, INDIRECT_CALL -> {
                        kind[pc] = Kind.CALL;
                        callTarget[pc] = op.hasBranchTarget() ? function.address() + pc + op.branchOffset(bits)
                                : paired ? function.address() + pairTarget : -1;
                    }
                    case RETURN -> kind[pc] = Kind.EXIT;
                    case INDIRECT_JUMP -> {
                        kind[pc] = Kind.EXIT;
                        if (!paired && labels.length > 0) {
                            indirectTargets[pc] = labels;
                        }
                    }
                    default -> kind[pc] = Kind.PLAIN;
                }
                mayStop[pc] = op == Table.ECALL;
                if (op == Table.AUIPC) {
                    nextAuipcReg = op.operand(bits, Operand.RD);
                    auipcValue = pc + (long) (int) (op.operand(bits, Operand.IMM) << 12);
                    auipcAt = pc;
                }
            }
            auipcReg = nextAuipcReg;
            pc += length;
        }
        try {
            return FunctionEdges.of(cfg, new FunctionEdges.Instructions(kind, target, callTarget, probeAt, canInsert,
                    indirectTargets, mayStop), function.address());
        } catch (EdgeProfileException e) {
            throw new EdgeProfileException(where + ": " + e.getMessage());
        }
    }

    /**
     * The graph a function's network is built on: the write-back's, entered at the start and the
     * landing pads, with a block at every label data refers to.
     *
     * @param binary the binary's shared parts
     * @param function one of its functions (with code bytes)
     * @return the graph, or null where a label lies inside an instruction
     */
    public static ControlFlowGraph cfg(Binary binary, Function function) {
        byte[] code = binary.elf().contents(function.section());
        int base = (int) (function.address() - function.section().address());
        int[] pads = offsets(binary.landingPads().getOrDefault(function.address(), new long[0]), function);
        return RiscVCfg.of(code, base, (int) function.size(), pads, labels(binary, function));
    }

    /**
     * The offsets inside a function (after its start) that data refers to: jump-table targets.
     *
     * @param binary the binary's shared parts
     * @param function one of its functions
     * @return the offsets, ascending
     */
    public static int[] labels(Binary binary, Function function) {
        return offsets(binary.dataReferences(), function);
    }

    /**
     * The default insertion rule when the write-back's own is not at hand: any instruction but
     * the one right after an auipc (its partner).
     *
     * @param elf the binary
     * @param function one of its functions
     * @return the rule, by offset
     */
    public static IntPredicate notAfterAuipc(ElfFile elf, Function function) {
        byte[] code = elf.contents(function.section());
        int base = (int) (function.address() - function.section().address());
        int size = (int) function.size();
        boolean[] ok = new boolean[size + 1];
        boolean afterAuipc = false;
        for (int pc = 0; pc < size; ) {
            int packed = Table.DECODER.decodeAt(code, base + pc, base + size);
            ok[pc] = !afterAuipc;
            afterAuipc = Table.DECODER.opcode(packed) == Table.AUIPC;
            pc += Decoder.size(packed);
        }
        return at -> at >= 0 && at <= size && ok[at];
    }

    /** The offsets of the addresses inside the function after its start, ascending, without duplicates. */
    private static int[] offsets(long[] addresses, Function f) {
        return Arrays.stream(addresses).filter(a -> a > f.address() && a < f.endAddress())
                .mapToInt(a -> (int) (a - f.address())).sorted().distinct().toArray();
    }

    private static int word(byte[] code, int at, int length) {
        int bits = 0;
        for (int i = 0; i < Math.min(length, 4) && at + i < code.length; i++) {
            bits |= (code[at + i] & 0xff) << (8 * i);
        }
        return bits;
    }
}
