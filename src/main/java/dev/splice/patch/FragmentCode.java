package dev.splice.patch;

import static dev.splice.base.Le.u32;
import static dev.splice.base.Le.putU32;

import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.patch.PatchException.Reason;

/**
 * A fragment assembled once, for every point it goes to: its bytes at a reference placement and
 * the words that depend on the placement (auipc pairs and {@code jal ra} calls to symbols outside
 * the fragment), with the {@link Variable}s their targets follow. Placing it at a point copies the
 * bytes and re-encodes those words for the point's values: no assembler run per point.
 */
final class FragmentCode {
    /** What a target may depend on besides constants; each has a reference value the code was assembled with. */
    enum Variable {
        /** The fragment's own address. */
        ADDRESS,
        /** The address of the runtime's code (its functions move with the new section). */
        RUNTIME,
        /** The template fields with a numeric value. */
        ADDR, OFFSET, ID, COUNTER;

        final int bit = 1 << ordinal();
    }

    /**
     * A word (or auipc pair) to re-encode at each point.
     *
     * @param offset the auipc's or the jal's offset in the fragment
     * @param low the pair's low part (the word after the auipc), or null for a jal
     * @param target the target at the reference values
     * @param depends the {@link Variable#bit}s the target follows (each with coefficient 1)
     */
    record Fixup(int offset, Opcode low, long target, int depends) {
        boolean pair() {
            return low != null;
        }
    }

    private final byte[] bytes;
    private final Fixup[] fixups;
    private final long writes;

    FragmentCode(byte[] bytes, Fixup[] fixups, long writes) {
        this.bytes = bytes;
        this.fixups = fixups;
        this.writes = writes;
    }

    /** {@return the integer registers the code may change ({@link WrittenRegisters})} */
    long writes() {
        return writes;
    }

    int size() {
        return bytes.length;
    }

    /** The words that depend on the placement (the output's relocations describe them). */
    Fixup[] fixups() {
        return fixups;
    }

    /**
     * Writes the fragment placed at {@code address} into {@code out} at {@code at}; {@code deltas}
     * holds each variable's value minus its reference value, by ordinal (the {@link Variable#ADDRESS}
     * entry is set here, from {@code address}).
     */
    void writeTo(byte[] out, int at, long address, long referenceAddress, long[] deltas, String name) {
        System.arraycopy(bytes, 0, out, at, bytes.length);
        deltas[Variable.ADDRESS.ordinal()] = address - referenceAddress;
        for (Fixup f : fixups) {
            long target = f.target;
            for (Variable v : Variable.values()) {
                if ((f.depends & v.bit) != 0) {
                    target += deltas[v.ordinal()];
                }
            }
            long pc = address + f.offset;
            int w = at + f.offset;
            if (f.pair()) {
                long hi = Rv.hi20(target - pc);
                if (!Rv.fits(hi, 20)) {
                    throw outOfReach(name, f, pc, target);
                }
                putU32(out, w, Rv.withUpper(Rv.AUIPC, u32(out, w), hi));
                int low = u32(out, w + 4);
                putU32(out, w + 4, f.low.withOperand(low, Operand.IMM, target - pc - (hi << 12)));
            } else {
                if (!Rv.JAL.field(Operand.BRANCH_OFFSET).fits(target - pc)) {
                    throw outOfReach(name, f, pc, target);
                }
                putU32(out, w, Rv.JAL.withOperand(u32(out, w), Operand.BRANCH_OFFSET, target - pc));
            }
        }
    }

    private static PatchException outOfReach(String name, Fixup f, long pc, long target) {
        return new PatchException(Reason.OUT_OF_REACH, name + ": " + (f.pair() ? "the auipc pair" : "jal") + " at fragment offset "
                + f.offset + " cannot reach 0x" + Long.toHexString(target) + " from 0x" + Long.toHexString(pc)
                + (f.pair() ? "" : "; use call, which reaches +-2 GiB"));
    }
}
