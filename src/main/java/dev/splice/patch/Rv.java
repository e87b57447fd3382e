package dev.splice.patch;

import dev.splice.isa.ControlFlow;
import dev.splice.isa.Encoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.isa.OperandException;

/**
 * The RV64 instructions the write-back re-encodes or treats specially, looked up in the ISA table
 * once; their operands are read and written through {@link Opcode#operand(int, Operand)} and
 * {@link Opcode#withOperand(int, Operand, long)}.
 */
final class Rv {
    private Rv() {}

    static final Isa ISA = Isa.rv64();
    static final Opcode AUIPC = opcode("auipc");
    static final Opcode LUI = opcode("lui");
    static final Opcode JAL = opcode("jal");
    static final Opcode JALR = opcode("jalr");
    static final Opcode C_J = opcode("c.j");
    static final Opcode C_BEQZ = opcode("c.beqz");
    static final Opcode C_BNEZ = opcode("c.bnez");
    static final Opcode BEQ = opcode("beq");
    static final Opcode BNE = opcode("bne");
    static final Opcode EBREAK = opcode("ebreak");
    static final Opcode C_EBREAK = opcode("c.ebreak");
    static final int NOP = encode(opcode("addi"), 0, 0, 0);
    static final int C_NOP = encode(opcode("c.nop"), 0);
    /** Register t1 (x6): the psABI's tail-call scratch register. */
    static final int T1 = 6;

    /** By {@link Opcode#id()}: the 32-bit conditional branch an instruction is or expands to, else null. */
    private static final Opcode[] CONDITION = new Opcode[ISA.opcodes().size()];
    /** By {@link Opcode#id()}: the 32-bit conditional branch with the opposite condition. */
    private static final Opcode[] INVERSE = new Opcode[ISA.opcodes().size()];
    /** By {@link Opcode#id()}: lr.w/lr.d (any ordering) and sc.w/sc.d. */
    private static final boolean[] LOAD_RESERVED = new boolean[ISA.opcodes().size()];
    private static final boolean[] STORE_CONDITIONAL = new boolean[ISA.opcodes().size()];

    static {
        String[][] opposites = {{"beq", "bne"}, {"blt", "bge"}, {"bltu", "bgeu"}};
        for (String[] pair : opposites) {
            Opcode a = opcode(pair[0]);
            Opcode b = opcode(pair[1]);
            CONDITION[a.id()] = a;
            CONDITION[b.id()] = b;
            INVERSE[a.id()] = b;
            INVERSE[b.id()] = a;
        }
        CONDITION[C_BEQZ.id()] = BEQ;
        CONDITION[C_BNEZ.id()] = BNE;
        for (Opcode op : ISA.opcodes()) {
            LOAD_RESERVED[op.id()] = op.mnemonic().startsWith("lr.");
            STORE_CONDITIONAL[op.id()] = op.mnemonic().startsWith("sc.");
        }
    }

    private static Opcode opcode(String mnemonic) {
        Opcode op = ISA.opcode(mnemonic);
        if (op == null) {
            throw new IllegalStateException("the instruction table has no " + mnemonic);
        }
        return op;
    }

    /** The 32-bit conditional branch that {@code op} is (beq..bgeu) or expands to (c.beqz, c.bnez), or null. */
    static Opcode condition(Opcode op) {
        return CONDITION[op.id()];
    }

    /** The conditional branch with the opposite condition of {@code branch} (one of beq..bgeu). */
    static Opcode inverted(Opcode branch) {
        Opcode inverse = INVERSE[branch.id()];
        if (inverse == null) {
            throw new IllegalArgumentException(branch + " is not a 32-bit conditional branch");
        }
        return inverse;
    }

    static boolean isLoadReserved(Opcode op) {
        return LOAD_RESERVED[op.id()];
    }

    static boolean isStoreConditional(Opcode op) {
        return STORE_CONDITIONAL[op.id()];
    }

    /** False when the instruction never continues with the next one: a jump without link, a return, an indirect jump. */
    static boolean fallsThrough(Opcode op, int bits) {
        ControlFlow flow = op.controlFlow(bits);
        return flow != ControlFlow.JUMP && flow != ControlFlow.RETURN && flow != ControlFlow.INDIRECT_JUMP;
    }

    /** True for ebreak and c.ebreak: a trap to a debugger, which may resume after it with every register as it was. */
    static boolean isBreakpoint(Opcode op) {
        return op == EBREAK || op == C_EBREAK;
    }

    /** True for a call that links ra (after it, t1 is dead: not preserved across calls, not a result). */
    static boolean callsThroughRa(Opcode op, int bits) {
        ControlFlow flow = op.controlFlow(bits);
        return (flow == ControlFlow.CALL || flow == ControlFlow.INDIRECT_CALL) && op.operand(bits, Operand.RD) == 1;
    }

    /** The value lui or auipc adds: its 20-bit immediate, sign-extended, times 4096. */
    static long upper(Opcode op, int bits) {
        return op.operand(bits, Operand.IMM) << 44 >> 32;
    }

    /** {@code bits} of lui or auipc with the upper immediate {@code hi20} (its low 20 bits). */
    static int withUpper(Opcode op, int bits, long hi20) {
        return op.withOperand(bits, Operand.IMM, hi20 & 0xfffff);
    }

    static boolean fits(long value, int bits) {
        long limit = 1L << (bits - 1);
        return value >= -limit && value < limit;
    }

    /** hi20 and lo12 of a pc-relative offset, as %pcrel_hi/%pcrel_lo split it. */
    static long hi20(long offset) {
        return (offset + 0x800) >> 12;
    }

    /** Encodes {@code op} with operand values in printed order. */
    static int encode(Opcode op, long... values) {
        try {
            return Encoder.encode(op, values);
        } catch (OperandException e) {
            throw new IllegalStateException("cannot encode " + op + ": " + e.getMessage(), e);
        }
    }
}
