package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_HI20;
import static dev.splice.base.Le.le32;

import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
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

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        long p = r.offset();
        int auipc = refs.instructionBits(p);
        if (refs.decode(auipc) != Rv.AUIPC) {
            throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "is not on an auipc");
        }
        long rd = Rv.AUIPC.operand(auipc, Operand.RD);
        List<Long> partners = new ArrayList<>(); // the addresses of the instructions using the low part
        if (r.type() == R_RISCV_PCREL_HI20) {
            for (Reloc lo : refs.in().relocations().lowParts(p)) {
                partners.add(lo.offset());
            }
        } else {
            partners.add(p + 4);
        }
        if (partners.isEmpty()) {
            throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "has no instruction completing the pair");
        }
        long hi = Rv.hi20(to - p);
        refs.patch(p, le32(Rv.withUpper(Rv.AUIPC, auipc, hi)));
        for (long q : partners) {
            int bits = refs.instructionBits(q);
            Opcode op = refs.decode(bits);
            if (op == null || op.field(Operand.IMM) == null || !op.has(Operand.RS1)
                    || p + Rv.upper(Rv.AUIPC, auipc) + op.operand(bits, Operand.IMM) != r.value()
                    || op.operand(bits, Operand.RS1) != rd) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "does not match the instructions at 0x" + Long.toHexString(p)
                        + " and 0x" + Long.toHexString(q));
            }
            if (refs.moved().find(q) != null) {
                throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "is completed inside moved code");
            }
            refs.patch(q, le32(op.withOperand(bits, Operand.IMM, to - p - (hi << 12))));
        }
    }
}
