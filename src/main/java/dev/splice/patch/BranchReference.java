package dev.splice.patch;

import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;

/**
 * {@code R_RISCV_JAL}, {@code BRANCH}, {@code RVC_BRANCH}, {@code RVC_JUMP}: a branch or jump in
 * code that stays, re-encoded in its own form for the new distance. A reference to a moved
 * function's entry that can no longer reach keeps going through the old entry, when that leads to
 * the same place.
 */
final class BranchReference implements ReferenceHandler {
    static final BranchReference INSTANCE = new BranchReference();

    private BranchReference() {}

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        InputImage image = refs.in().image();
        long p = r.offset();
        long off = image.fileOffset(p);
        int parcel = image.u16(off);
        int size = Decoder.length(parcel);
        int bits = size == 2 ? parcel : (int) image.u32(off);
        Opcode op = refs.in().decoder().decode(bits, size);
        if (op == null || !op.hasBranchTarget() || p + op.branchOffset(bits) != r.value()) {
            throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "does not match the instruction there");
        }
        Item i = FunctionDecoder.classify(refs.in().file(), op, bits, size, p);
        long offset = to - p;
        if (!i.form.reaches(offset)) {
            if (r.value() == m.function.address() && to == refs.trampolines().target(m)) {
                // The jump at the old entry leads to the same place: it must be there.
                refs.trampolines().useOldEntry(m, refs.describe(r, "cannot reach the copy"));
                return;
            }
            throw new PatchException(Reason.OUT_OF_REACH, refs.describe(r, "cannot reach the new address 0x"
                    + Long.toHexString(to) + " of its target" + (r.value() == m.function.address()
                    ? ", and the old entry cannot serve it: code before '" + m.function.name() + "' may fall through "
                    + "into it, so the old entry must run the fragment" : "")), m.function.address());
        }
        byte[] b = new byte[i.form.size()];
        i.form.encode(i, offset, b, 0);
        refs.patch(p, b);
    }
}
