package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB16;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB6;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB8;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB_ULEB128;
import static dev.splice.base.Le.le32;
import static dev.splice.base.Le.le64;

import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.List;

/**
 * {@code R_RISCV_ADD32/SUB32} and {@code ADD64/SUB64} pairs: a label difference in data (jump
 * tables, LSDA call-site tables), recomputed from the new addresses of both labels.
 */
final class LabelDifferenceReference implements ReferenceHandler {
    static final LabelDifferenceReference INSTANCE = new LabelDifferenceReference();

    private LabelDifferenceReference() {}

    /** True for the subtracting halves of label differences. */
    static boolean isSubtraction(int type) {
        return type == R_RISCV_SUB8 || type == R_RISCV_SUB16 || type == R_RISCV_SUB32 || type == R_RISCV_SUB64 || type == R_RISCV_SUB6
                || type == R_RISCV_SUB_ULEB128;
    }

    /** Refuses a subtraction of moved code's address that has no addition to pair with. */
    static void checkSubtraction(Reloc sub, References refs) {
        if (refs.moved().find(sub.value()) != null && !hasAdd(sub, refs)) {
            throw refs.refuse(sub, Reason.UNSUPPORTED_RELOCATION, "subtracts the address of moved code without a matching add");
        }
    }

    /** The moved function whose end an ADD names while its SUB names a label inside it, or null. */
    static MovedFunction endOfMovedFunction(Reloc add, References refs) {
        for (Reloc s : refs.subtractions().getOrDefault(add.offset(), List.of())) {
            MovedFunction m = refs.moved().find(s.value());
            if (s.section() == add.section() && m != null && add.value() == m.function.endAddress()) {
                return m;
            }
        }
        return null;
    }

    private static boolean hasAdd(Reloc sub, References refs) {
        for (Reloc r : refs.in().relocations().at(sub.offset())) {
            if (r.section() == sub.section() && (r.type() == R_RISCV_ADD32 || r.type() == R_RISCV_ADD64)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        long p = r.offset();
        Reloc sub = null;
        for (Reloc s : refs.subtractions().getOrDefault(p, List.of())) {
            if (s.section() == r.section()) {
                sub = s;
            }
        }
        if (sub == null || (sub.type() == R_RISCV_SUB32) != (r.type() == R_RISCV_ADD32)) {
            throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "has no matching subtraction (a label difference is expected)");
        }
        long oldValue = r.value() - sub.value();
        MovedCode moved = refs.moved();
        // A label at the end of the moved function (e.g. the end of a call-site range) maps to the copy's end.
        MovedFunction subIn = moved.find(sub.value());
        long addTo = to;
        if (subIn != null && r.value() == subIn.function.endAddress()) {
            addTo = contentEnd(subIn);
        }
        // A moved function's start as the subtrahend is its new start (the FDE's pc_begin, the
        // base of LSDA offsets), whatever the insertion policy there.
        long subTo = subIn != null && sub.value() == subIn.function.address() ? subIn.newStart
                : moved.mapBranchTarget(sub.value());
        long newValue = addTo - subTo;
        refs.newValues().put(r.relocation(), addTo);
        refs.newValues().put(sub.relocation(), subTo);
        if (r.type() == R_RISCV_ADD32) {
            refs.requireWord(r, refs.u32At(p, r), oldValue & 0xffffffffL, 4);
            if (!Rv.fits(newValue, 32)) {
                throw refs.refuse(r, Reason.OUT_OF_REACH, "label difference no longer fits 32 bits");
            }
            refs.patch(p, le32((int) newValue));
        } else {
            refs.requireWord(r, refs.u64At(p, r), oldValue, 8);
            refs.patch(p, le64(newValue));
        }
    }

    /** The new address of the end of a moved function's original code (before any jump back). */
    private static long contentEnd(MovedFunction m) {
        MovedFunction.Item last = m.items.get(m.items.size() - 1);
        return last.kind == MovedFunction.Kind.FALLTHROUGH ? last.newAddress : m.newStart + m.newSize;
    }
}
