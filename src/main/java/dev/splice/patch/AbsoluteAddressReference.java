package dev.splice.patch;

import static dev.splice.base.Le.le32;

import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;

/**
 * {@code R_RISCV_HI20}, {@code LO12_I}, {@code LO12_S}: {@code lui %hi(sym)} and its {@code %lo(sym)}
 * users in code that stays; each carries its own relocation and is re-encoded for the new address.
 */
final class AbsoluteAddressReference implements ReferenceHandler {
    static final AbsoluteAddressReference INSTANCE = new AbsoluteAddressReference();

    private AbsoluteAddressReference() {}

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        InputImage image = refs.in().image();
        long p = r.offset();
        int bits = (int) image.u32(image.fileOffset(p));
        long old = r.value();
        long oldHi = (old + 0x800) >> 12;
        long newHi = (to + 0x800) >> 12;
        int patched;
        if (r.type() == Rel.HI20) {
            if ((bits & 0x7f) != 0x37 || Rv.uImm(bits) != (oldHi << 12 << 32 >> 32)) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "is not on a lui of the symbol's high part");
            }
            if (!Rv.fits(newHi, 20)) {
                throw refs.refuse(r, Reason.OUT_OF_REACH, "cannot hold the new address 0x" + Long.toHexString(to));
            }
            patched = Rv.withUImm(bits, newHi);
        } else {
            boolean store = r.type() == Rel.LO12_S;
            long lo = store ? Rv.sImm(bits) : Rv.iImm(bits);
            if (lo != old - (oldHi << 12)) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "does not hold the symbol's low part");
            }
            long newLo = to - (newHi << 12);
            patched = store ? Rv.withSImm(bits, newLo) : Rv.withIImm(bits, newLo);
        }
        refs.patch(p, le32(patched));
    }
}
