package dev.splice.patch;

import static dev.splice.base.Le.le32;
import static dev.splice.base.Le.le64;

import dev.splice.elf.reloc.RiscVRelocations;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;

/**
 * {@code R_RISCV_64} and {@code R_RISCV_32}: an absolute address in data (function pointers,
 * init_array). Where the loader relocates the word too (a position-independent binary), the dynamic
 * relocation there must name the same address; it is retargeted with the other dynamic ones.
 */
final class DataWordReference implements ReferenceHandler {
    static final DataWordReference WORD64 = new DataWordReference(8);
    static final DataWordReference WORD32 = new DataWordReference(4);

    private final int size;

    private DataWordReference(int size) {
        this.size = size;
    }

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        long p = r.offset();
        Reloc dynamic = refs.in().dynamicRelocations().at(p);
        if (dynamic != null) {
            // The loader writes this word (DynamicRelocationReference retargets its relocation); the file holds 0 or the value.
            if (size != 8 || dynamic.value() != r.value()) {
                throw refs.refuse(r, Reason.RELOCATION_MISMATCH, "disagrees with the dynamic relocation "
                        + RiscVRelocations.name(dynamic.type()) + " at the same place (value 0x" + Long.toHexString(dynamic.value()) + ")");
            }
            if (refs.u64At(p, r) == r.value()) {
                refs.patch(p, le64(to));
            }
        } else if (size == 8) {
            refs.requireWord(r, refs.u64At(p, r), r.value(), 8);
            refs.patch(p, le64(to));
        } else {
            refs.requireWord(r, refs.u32At(p, r), r.value() & 0xffffffffL, 4);
            if (to >>> 32 != 0) {
                throw refs.refuse(r, Reason.OUT_OF_REACH, "cannot hold the new address 0x" + Long.toHexString(to));
            }
            refs.patch(p, le32((int) to));
        }
    }
}
