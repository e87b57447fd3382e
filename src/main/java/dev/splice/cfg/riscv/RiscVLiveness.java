package dev.splice.cfg.riscv;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Block;
import dev.splice.cfg.Liveness;
import dev.splice.cfg.Liveness.Effect;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Field;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;

/**
 * Register liveness ({@link Liveness}) of a RISC-V function, with the psABI's conventions where
 * control leaves the function's sight: a call reads the argument registers a0-a7 and clobbers the
 * caller-saved ones (ra, t0-t6, a0-a7); a return needs a0, a1 and the callee-saved s0-s11; a jump
 * or a conditional branch out of the function to a function that follows the ABI (a tail call)
 * needs a0-a7, s0-s11 and ra; one elsewhere (into GCC's {@code .cold} part of the function, which
 * shares its registers, or anywhere not known), an indirect jump that is not a return, a trap, an
 * undecodable word and running off the function's end make every register live; an ecall reads a0-a7 and clobbers nothing. sp, gp and tp are live
 * everywhere. A call may throw to any of the function's landing pads (every entry block but the
 * first). Only integer registers are tracked; floating-point and vector operands are ignored.
 */
public final class RiscVLiveness {
    private RiscVLiveness() {}

    /** ra, t0-t2, a0-a7, t3-t6. */
    public static final int CALLER_SAVED = 1 << 1 | 0b111 << 5 | 0xff << 10 | 0xf << 28;
    /** s0, s1, s2-s11. */
    public static final int CALLEE_SAVED = 0b11 << 8 | 0x3ff << 18;
    /** a0-a7. */
    public static final int ARGUMENTS = 0xff << 10;
    /** sp, gp, tp: live at every boundary. */
    public static final int ALWAYS = 0b111 << 2;
    /** Every register but x0. */
    public static final int ALL = ~1;
    private static final int RETURNED = 0b11 << 10 | CALLEE_SAVED;
    private static final int TAIL_CALL = ARGUMENTS | CALLEE_SAVED | 1 << 1;

    private static final class Table {
        static final Isa ISA = Isa.rv64();
        static final Decoder DECODER = ISA.decoder(ISA.extensions());
        static final Opcode ECALL = ISA.opcode("ecall");
        static final Operand[] SOURCES = {Operand.RS1, Operand.RS2, Operand.RS3};
    }

    /**
     * The liveness of the function whose bytes are {@code code[base, base + size)}, over its graph.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param cfg its write-back graph ({@link RiscVCfg#of(byte[], int, int, int[])} or with labels)
     * @return the solution
     */
    public static Liveness of(byte[] code, int base, int size, ControlFlowGraph cfg) {
        return of(code, base, size, cfg, 0, target -> false);
    }

    /**
     * The liveness of a function whose jumps out of it may be tail calls: a jump or conditional
     * branch to an address {@code abiEntry} accepts needs what a call's callee may read, not everything.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param cfg its write-back graph
     * @param address the function's address
     * @param abiEntry whether an address is the entry of a function that follows the psABI (not a
     *     {@code .cold} part)
     * @return the solution
     */
    public static Liveness of(byte[] code, int base, int size, ControlFlowGraph cfg, long address,
                              java.util.function.LongPredicate abiEntry) {
        Effect[] effects = new Effect[size + 1];
        java.util.List<Block> blocks = cfg.blocks();
        int pads = 0;
        for (Block b : blocks) {
            if (b.entryPoint() && b.start() != 0) {
                pads++;
            }
        }
        int[] landingPads = new int[pads];
        int k = 0;
        for (Block b : blocks) {
            if (b.entryPoint() && b.start() != 0) {
                landingPads[k++] = b.index();
            }
            java.util.List<Integer> insns = b.instructions();
            for (int i = 0; i < insns.size(); i++) {
                int at = insns.get(i);
                boolean last = i == insns.size() - 1;
                effects[at] = effect(code, base, size, at, last && b.successors().isEmpty() ? ALL : 0, address, abiEntry);
            }
        }
        return Liveness.solve(cfg, effects, landingPads, ALWAYS);
    }

    /**
     * The effect of one instruction.
     *
     * @param deadEnd what leaving needs when the instruction ends a block without successors in
     *     the graph and is not itself a return or a tail call (everything: running off the end, a trap)
     */
    private static Effect effect(byte[] code, int base, int size, int at, int deadEnd, long address,
                                 java.util.function.LongPredicate abiEntry) {
        int packed = Table.DECODER.decodeAt(code, base + at, base + size);
        Opcode op = Table.DECODER.opcode(packed);
        if (op == null || op.mnemonic().startsWith("cm.")) {
            return new Effect(ALL, 0, ALL, false, -1); // unknown, or Zcmp's implicit register lists
        }
        int bits = 0;
        int length = Decoder.size(packed);
        for (int i = 0; i < Math.min(4, length); i++) {
            bits |= (code[base + at + i] & 0xff) << (8 * i);
        }
        int uses = 0;
        for (Operand role : Table.SOURCES) {
            uses |= integer(op, bits, role);
        }
        int defs = integer(op, bits, Operand.RD);
        ControlFlow flow = op.controlFlow(bits);
        return switch (flow) {
            case CALL, INDIRECT_CALL -> new Effect(uses | ARGUMENTS, defs | CALLER_SAVED, deadEnd, true, -1);
            case RETURN -> new Effect(uses, defs, RETURNED, false, -1);
            case JUMP, BRANCH -> {
                long target = at + op.branchOffset(bits);
                boolean out = target < 0 || target >= size;
                int leaving = !out ? deadEnd : abiEntry.test(address + target) ? TAIL_CALL : ALL;
                yield new Effect(uses, defs, leaving, false, out ? -1 : (int) target);
            }
            case INDIRECT_JUMP, TRAP, TRAP_RETURN -> new Effect(uses, defs, ALL, false, -1);
            default -> op == Table.ECALL ? new Effect(uses | ARGUMENTS, 0, deadEnd, false, -1)
                    : new Effect(uses, defs, deadEnd, false, -1);
        };
    }

    /** The bit of an integer register operand, 0 for x0, an absent role or a floating-point or vector one. */
    private static int integer(Opcode op, int bits, Operand role) {
        if (!op.has(role)) {
            return 0;
        }
        Field f = op.field(role);
        if (f != null && f.type() != Field.Type.INTEGER_REGISTER) {
            return 0;
        }
        return (int) (1L << op.operand(bits, role)) & ~1;
    }
}
