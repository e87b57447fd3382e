package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_HI20;
import static dev.splice.base.Le.le32;

import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
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
        long p = r.offset();
        int bits = refs.instructionBits(p);
        Opcode op = refs.decode(bits);
        long old = r.value();
        long oldHi = (old + 0x800) >> 12;
        long newHi = (to + 0x800) >> 12;
        int patched;
        if (r.type() == R_RISCV_HI20) {
            if (op != Rv.LUI || Rv.upper(op, bits) != (oldHi << 12 << 32 >> 32)) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "is not on a lui of the symbol's high part");
            }
            if (!Rv.fits(newHi, 20)) {
                throw refs.refuse(r, Reason.OUT_OF_REACH, "cannot hold the new address 0x" + Long.toHexString(to));
            }
            patched = Rv.withUpper(op, bits, newHi);
        } else {
            if (op == null || op.field(Operand.IMM) == null || op.operand(bits, Operand.IMM) != old - (oldHi << 12)) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "does not hold the symbol's low part");
            }
            patched = op.withOperand(bits, Operand.IMM, to - (newHi << 12));
        }
        refs.patch(p, le32(patched));
    }
}
