package dev.splice.patch;

import static dev.splice.base.Le.le32;

import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code R_RISCV_CALL}, {@code CALL_PLT}, {@code PCREL_HI20}: an auipc in code that stays and the
 * instructions completing it (the jalr after a call, the {@code PCREL_LO12_I/S} users of the
 * auipc), re-encoded together for the new distance.
 */
final class PcRelativePairReference implements ReferenceHandler {
    static final PcRelativePairReference INSTANCE = new PcRelativePairReference();

    private PcRelativePairReference() {}

    /** An instruction completing the pair: its address and whether it is S-type (a store). */
    private record LowPart(long address, boolean store) {}

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        InputImage image = refs.in().image();
        long p = r.offset();
        int auipc = (int) image.u32(image.fileOffset(p));
        if ((auipc & 0x7f) != 0x17) {
            throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "is not on an auipc");
        }
        int rd = Rv.rd(auipc);
        List<LowPart> partners = new ArrayList<>();
        if (r.type() == Rel.PCREL_HI20) {
            for (Reloc lo : refs.in().relocations().lowParts(p)) {
                partners.add(new LowPart(lo.offset(), lo.type() == Rel.PCREL_LO12_S));
            }
        } else {
            partners.add(new LowPart(p + 4, false));
        }
        if (partners.isEmpty()) {
            throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "has no instruction completing the pair");
        }
        long hi = Rv.hi20(to - p);
        refs.patch(p, le32(Rv.withUImm(auipc, hi)));
        for (LowPart q : partners) {
            int bits = (int) image.u32(image.fileOffset(q.address()));
            long low = q.store() ? Rv.sImm(bits) : Rv.iImm(bits);
            if (p + Rv.uImm(auipc) + low != r.value() || Rv.rs1(bits) != rd) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "does not match the instructions at 0x" + Long.toHexString(p)
                        + " and 0x" + Long.toHexString(q.address()));
            }
            if (refs.moved().find(q.address()) != null) {
                throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "is completed inside moved code");
            }
            long lo = to - p - (hi << 12);
            refs.patch(q.address(), le32(q.store() ? Rv.withSImm(bits, lo) : Rv.withIImm(bits, lo)));
        }
    }
}
