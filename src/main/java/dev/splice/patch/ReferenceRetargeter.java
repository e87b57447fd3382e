package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;

import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The retarget stage of insertion: every reference to moved code from the code and data that
 * stay, found through its relocation, goes to its {@link ReferenceHandler}. Relocations inside the
 * moved code (re-encoded with it) and in .eh_frame ({@link EhFrameRewriter}) are left to others; a
 * reference of a type without a handler is refused.
 */
final class ReferenceRetargeter {
    private final Input in;
    private final MovedCode moved;
    private final Trampolines trampolines;

    ReferenceRetargeter(Input in, MovedCode moved, Trampolines trampolines) {
        this.in = in;
        this.moved = moved;
        this.trampolines = trampolines;
    }

    /** The patches of every reference from outside the moved code, in relocation order. */
    List<Patch> run() {
        Map<Long, List<Reloc>> subtractions = new HashMap<>();
        for (Reloc r : in.relocations().all()) {
            if (LabelDifferenceReference.isSubtraction(r.type())) {
                subtractions.computeIfAbsent(r.offset(), k -> new ArrayList<>(1)).add(r);
            }
        }
        References refs = new References(in, moved, trampolines, subtractions, new ArrayList<>());
        for (Reloc r : in.relocations().all()) {
            if (moved.find(r.offset()) != null && r.target().isExecutable()) {
                continue; // re-encoded with the moved code
            }
            if (r.target().name().equals(".eh_frame")) {
                continue; // EhFrameRewriter
            }
            int type = r.type();
            if (RelocationIndex.isPcrelLo(type)) {
                continue;
            }
            if (LabelDifferenceReference.isSubtraction(type)) {
                LabelDifferenceReference.checkSubtraction(r, refs);
                continue;
            }
            MovedFunction m = moved.find(r.value());
            if (m == null && (type == R_RISCV_ADD32 || type == R_RISCV_ADD64)) {
                m = LabelDifferenceReference.endOfMovedFunction(r, refs);
            }
            if (m == null) {
                continue;
            }
            long to = m.contains(r.value()) ? moved.mapBranchTarget(r.value()) : r.value();
            ReferenceHandler handler = ReferenceHandler.of(type);
            if (handler == null) {
                throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "refers to moved code; this relocation type is not handled");
            }
            handler.retarget(r, m, to, refs);
        }
        return refs.patches();
    }
}
