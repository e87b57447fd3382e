package dev.splice.patch;

import static dev.splice.base.Le.putU32;

import dev.splice.isa.Field;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.patch.MovedFunction.Item;

/**
 * The machine code a direct branch or jump takes in the new code: its size, how far it reaches
 * and its encoding. Layout starts each branch in its original form and widens it
 * ({@link #wider()}) until its target is in reach; sizes only grow, so relaxation converges.
 */
enum BranchForm {
    /** {@code c.beqz}/{@code c.bnez}: ±256 bytes. */
    C_BRANCH(2, Rv.C_BEQZ.field(Operand.BRANCH_OFFSET), 0, false),
    /** {@code beq}..{@code bgeu}: ±4 KiB. */
    BRANCH(4, Rv.BEQ.field(Operand.BRANCH_OFFSET), 0, false),
    /** The inverted branch over a {@code jal x0}: ±1 MiB from the jal. */
    BRANCH_OVER_JAL(8, Rv.JAL.field(Operand.BRANCH_OFFSET), 4, false),
    /**
     * The inverted branch over {@code auipc r; jr r}: ±2 GiB from the auipc, through a register
     * {@code r} liveness proves dead at the branch (the last branch form).
     */
    BRANCH_OVER_FAR_JUMP(12, null, 4, false),
    /** {@code c.j}: ±2 KiB. */
    C_JUMP(2, Rv.C_J.field(Operand.BRANCH_OFFSET), 0, true),
    /** {@code jal rd}: ±1 MiB. */
    JAL(4, Rv.JAL.field(Operand.BRANCH_OFFSET), 0, true),
    /** {@code auipc r; jalr rd, r}: ±2 GiB, through {@code rd} or, for {@code rd = x0}, the scratch register t1. */
    FAR_JUMP(8, null, 0, true);

    private final int size;
    /** The range and alignment of the offset field of the instruction that reaches the target (auipc + jalr: 32 bits). */
    private final long min;
    private final long max;
    private final long alignmentMask;
    /** Where the instruction that reaches the target starts, from the form's first byte. */
    private final int jumpAt;
    private final boolean jump;

    /** {@code reach}: the offset field of the instruction that reaches the target; null for auipc + jalr. */
    BranchForm(int size, Field reach, int jumpAt, boolean jump) {
        this.size = size;
        this.min = reach == null ? Integer.MIN_VALUE : reach.min();
        this.max = reach == null ? Integer.MAX_VALUE : reach.max();
        this.alignmentMask = reach == null ? 0 : reach.alignment() - 1;
        this.jumpAt = jumpAt;
        this.jump = jump;
    }

    /** Bytes of code. */
    int size() {
        return size;
    }

    /** True if the form reaches a target {@code offset} bytes from its first byte. */
    boolean reaches(long offset) {
        long d = offset - jumpAt;
        return d >= min && d <= max && (d & alignmentMask) == 0;
    }

    /** The next wider form, or null when this one reaches farthest. */
    BranchForm wider() {
        return switch (this) {
            case C_BRANCH -> BRANCH;
            case BRANCH -> BRANCH_OVER_JAL;
            case BRANCH_OVER_JAL -> BRANCH_OVER_FAR_JUMP;
            case C_JUMP -> JAL;
            case JAL -> FAR_JUMP;
            case BRANCH_OVER_FAR_JUMP, FAR_JUMP -> null;
        };
    }

    /** True if the form needs a register it may clobber (a jump with {@code rd = x0} uses t1 or a dead one). */
    boolean needsScratch() {
        return this == FAR_JUMP || this == BRANCH_OVER_FAR_JUMP;
    }

    /** Writes {@code i} (a branch or jump item) in this form, {@code offset} from its first byte to its target. */
    void encode(Item i, long offset, byte[] out, int at) {
        if (jump) {
            encodeJump(i.rd, i.scratch, offset, out, at);
        } else {
            encodeBranch(i.branch, i.rs1, i.rs2, i.scratch, offset, out, at);
        }
    }

    /**
     * Writes the conditional branch {@code condition rs1, rs2} (condition: beq..bgeu) in this (branch)
     * form; the far form's auipc writes {@code scratch}.
     */
    void encodeBranch(Opcode condition, int rs1, int rs2, int scratch, long offset, byte[] out, int at) {
        switch (this) {
            case C_BRANCH -> put16(out, at, Rv.encode(condition == Rv.BEQ ? Rv.C_BEQZ : Rv.C_BNEZ, rs1, offset));
            case BRANCH -> putU32(out, at, Rv.encode(condition, rs1, rs2, offset));
            case BRANCH_OVER_JAL -> {
                putU32(out, at, Rv.encode(Rv.inverted(condition), rs1, rs2, 8));
                putU32(out, at + 4, Rv.encode(Rv.JAL, 0, offset - 4));
            }
            case BRANCH_OVER_FAR_JUMP -> {
                putU32(out, at, Rv.encode(Rv.inverted(condition), rs1, rs2, 12));
                FAR_JUMP.encodeJump(0, scratch, offset - 4, out, at + 4);
            }
            default -> throw new IllegalStateException(this + " is not a conditional branch form");
        }
    }

    /** Writes the jump that links {@code rd} (x0: none) in this (jump) form; a far jump without rd goes through t1. */
    void encodeJump(int rd, long offset, byte[] out, int at) {
        encodeJump(rd, Rv.T1, offset, out, at);
    }

    /** Writes the jump that links {@code rd} (x0: none) in this (jump) form; a far one without rd goes through {@code scratch}. */
    void encodeJump(int rd, int scratch, long offset, byte[] out, int at) {
        switch (this) {
            case C_JUMP -> put16(out, at, Rv.encode(Rv.C_J, offset));
            case JAL -> putU32(out, at, Rv.encode(Rv.JAL, rd, offset));
            case FAR_JUMP -> {
                long hi = Rv.hi20(offset);
                int via = rd != 0 ? rd : scratch;
                putU32(out, at, Rv.encode(Rv.AUIPC, via, hi & 0xfffff));
                putU32(out, at + 4, Rv.encode(Rv.JALR, rd, offset - (hi << 12), via));
            }
            default -> throw new IllegalStateException(this + " is not a jump form");
        }
    }

    private static void put16(byte[] out, int at, int bits) {
        out[at] = (byte) bits;
        out[at + 1] = (byte) (bits >>> 8);
    }
}
