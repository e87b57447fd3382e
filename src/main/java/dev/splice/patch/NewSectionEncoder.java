package dev.splice.patch;

import static dev.splice.base.Le.putU32;

import dev.splice.isa.Operand;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.MovedFunction.Partner;
import dev.splice.patch.PatchException.Reason;

/**
 * Encodes the new code section once layout has fixed every address and branch form: the moved
 * functions' instructions (pc-relative ones re-encoded for their new places, auipc pairs with their
 * low parts), the fragments and the jumps back, with nops between functions. A pair whose targets
 * no longer share one auipc is refused rather than encoded wrong.
 */
final class NewSectionEncoder {
    private final MovedCode moved;
    private final String file;
    private final FragmentAssembler fragments;
    private final long runtime;

    /** {@code runtime}: the runtime's address, which calls from fragments reach. */
    NewSectionEncoder(MovedCode moved, String file, FragmentAssembler fragments, long runtime) {
        this.moved = moved;
        this.file = file;
        this.fragments = fragments;
        this.runtime = runtime;
    }

    /**
     * The new section's bytes: its first byte at {@code base}, its last before {@code end}; the
     * moved code from {@code codeStart} (the runtime's bytes go before it, written by the caller).
     */
    byte[] encode(long base, long codeStart, long end) {
        byte[] out = new byte[(int) (end - base)];
        long previousEnd = codeStart;
        for (MovedFunction m : moved.functions()) {
            fillPadding(out, previousEnd - base, m.newStart - base);
            for (Item i : m.items) {
                int at = (int) (i.newAddress - base);
                Kind kind = i.kind; // ifs, not an enum switch: cheaper under C1
                if (kind == Kind.PLAIN || kind == Kind.AUIPC) {
                    // Most items keep their bits (an auipc's are rewritten below): no array per item.
                    if (i.oldSize == 2) {
                        out[at] = (byte) i.bits;
                        out[at + 1] = (byte) (i.bits >> 8);
                    } else {
                        putU32(out, at, i.bits);
                    }
                } else if (kind == Kind.FRAGMENT) {
                    fragments.place(i, i.points, runtime, out, at);
                } else {
                    long target = kind == Kind.FALLTHROUGH ? moved.mapFallThrough(i.target) : moved.mapBranchTarget(i.target);
                    i.form.encode(i, target - i.newAddress, out, at);
                }
            }
            previousEnd = m.newStart + m.newSize;
        }
        // Low parts were encoded with their auipc: write them over the copies.
        for (MovedFunction m : moved.functions()) {
            for (Item i : m.items) {
                if (i.kind == Kind.AUIPC) {
                    encodePair(m, i, out, base);
                }
            }
        }
        return out;
    }

    private void fillPadding(byte[] out, long from, long to) {
        for (long p = from; p + 1 < to; ) {
            if (to - p >= 4) {
                putU32(out, (int) p, Rv.NOP);
                p += 4;
            } else {
                out[(int) p] = (byte) Rv.C_NOP;
                out[(int) p + 1] = (byte) (Rv.C_NOP >>> 8);
                p += 2;
            }
        }
    }

    private void encodePair(MovedFunction m, Item auipc, byte[] out, long base) {
        Partner first = auipc.partners.get(0);
        long t0 = moved.mapBranchTarget(first.target());
        long hi = Rv.hi20(t0 - auipc.newAddress);
        if (!Rv.fits(hi, 20)) {
            throw new PatchException(Reason.OUT_OF_REACH, file + ": auipc at 0x" + Long.toHexString(auipc.oldAddress) + " cannot reach 0x"
                    + Long.toHexString(t0) + " from 0x" + Long.toHexString(auipc.newAddress), m.function.address());
        }
        putU32(out, (int) (auipc.newAddress - base), Rv.withUpper(auipc.op, auipc.bits, hi));
        for (Partner p : auipc.partners) {
            long lo = moved.mapBranchTarget(p.target()) - auipc.newAddress - (hi << 12);
            Item low = p.item();
            if (!low.op.field(Operand.IMM).fits(lo)) {
                throw new PatchException(Reason.OUT_OF_REACH, file + ": the pc-relative pair at 0x" + Long.toHexString(auipc.oldAddress)
                        + " in function '" + m.function.name() + "' addresses targets too far apart to share one auipc");
            }
            putU32(out, (int) (low.newAddress - base), low.op.withOperand(low.bits, Operand.IMM, lo));
        }
    }
}
