package dev.splice.patch;

import dev.splice.isa.Encoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.OperandException;

/** Field access and re-encoding of the RV64 instructions the write-back rewrites. */
final class Rv {
    private Rv() {}

    static final Isa ISA = Isa.rv64();
    static final int C_NOP = 0x0001;
    static final int NOP = 0x00000013;
    /** Register t1 (x6): the psABI's tail-call scratch register. */
    static final int T1 = 6;

    static int rd(int bits) {
        return (bits >>> 7) & 31;
    }

    static int rs1(int bits) {
        return (bits >>> 15) & 31;
    }

    static int rs2(int bits) {
        return (bits >>> 20) & 31;
    }

    static long iImm(int bits) {
        return bits >> 20;
    }

    static long sImm(int bits) {
        return ((bits >> 25) << 5) | ((bits >>> 7) & 31);
    }

    static long uImm(int bits) {
        return (long) (bits & 0xfffff000);
    }

    static int withIImm(int bits, long imm) {
        return (bits & 0x000fffff) | (int) ((imm & 0xfff) << 20);
    }

    static int withSImm(int bits, long imm) {
        return (bits & 0x01fff07f) | (int) (((imm >> 5) & 0x7f) << 25) | (int) ((imm & 31) << 7);
    }

    static int withUImm(int bits, long hi20) {
        return (bits & 0xfff) | (int) ((hi20 & 0xfffff) << 12);
    }

    static boolean fits(long value, int bits) {
        long limit = 1L << (bits - 1);
        return value >= -limit && value < limit;
    }

    /** hi20 and lo12 of a pc-relative offset, as %pcrel_hi/%pcrel_lo split it. */
    static long hi20(long offset) {
        return (offset + 0x800) >> 12;
    }

    static int encode(String mnemonic, long... values) {
        Opcode op = ISA.opcode(mnemonic);
        try {
            return Encoder.encode(op, values);
        } catch (OperandException e) {
            throw new IllegalStateException("cannot encode " + mnemonic + ": " + e.getMessage(), e);
        }
    }

    /** The full conditional branch with the opposite condition. */
    static String inverted(String branch) {
        return switch (branch) {
            case "beq" -> "bne";
            case "bne" -> "beq";
            case "blt" -> "bge";
            case "bge" -> "blt";
            case "bltu" -> "bgeu";
            case "bgeu" -> "bltu";
            default -> throw new IllegalArgumentException(branch);
        };
    }
}
