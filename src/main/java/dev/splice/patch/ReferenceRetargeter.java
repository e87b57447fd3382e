package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;

import dev.splice.elf.Relocation;
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
 * reference of a type without a handler is refused. The dynamic loader's relocations follow, with
 * their own handlers ({@link ReferenceHandler#ofDynamic}).
 */
final class ReferenceRetargeter {
    private final Input in;
    private final MovedCode moved;
    private final Trampolines trampolines;
    private final Map<Relocation, Long> newValues = new HashMap<>();

    ReferenceRetargeter(Input in, MovedCode moved, Trampolines trampolines) {
        this.in = in;
        this.moved = moved;
        this.trampolines = trampolines;
    }

    /**
     * The value every relocation that {@link #run} retargeted has now (the new address it names;
     * for a label difference, each label's), by relocation.
     */
    Map<Relocation, Long> newValues() {
        return newValues;
    }

    /** The patches of every reference from outside the moved code, in relocation order. */
    List<Patch> run() {
        Map<Long, List<Reloc>> subtractions = new HashMap<>();
        for (Reloc r : in.relocations().all()) {
            if (LabelDifferenceReference.isSubtraction(r.type())) {
                subtractions.computeIfAbsent(r.offset(), k -> new ArrayList<>(1)).add(r);
            }
        }
        References refs = new References(in, moved, trampolines, subtractions, new ArrayList<>(), newValues);
        for (Reloc r : in.relocations().all()) {
            if (moved.find(r.offset()) != null && r.target().isExecutable()) {
                continue; // re-encoded with the moved code
            }
            if (r.target().name().equals(".eh_frame") || r.target().name().equals(EhFrameRewriter.SECTION)) {
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
                // Blames the moved function: bulk mode leaves it in place and retries.
                throw new PatchException(Reason.UNSUPPORTED_RELOCATION,
                        refs.describe(r, "refers to moved code; this relocation type is not handled"), m.function.address());
            }
            int before = refs.patches().size();
            handler.retarget(r, m, to, refs);
            // Retargeted when something was written, or when the loader writes the word (its relocation is retargeted).
            if (refs.patches().size() > before || in.dynamicRelocations().at(r.offset()) != null) {
                newValues.putIfAbsent(r.relocation(), to);
            }
        }
        retargetDynamic(refs);
        return refs.patches();
    }

    /** The dynamic relocations (the loader's) whose value is moved code; one in moved code is refused. */
    private void retargetDynamic(References refs) {
        for (Reloc r : in.dynamicRelocations().all()) {
            int type = r.type();
            if (ReferenceHandler.namesNoCode(type)) {
                continue;
            }
            if (moved.find(r.offset()) != null) {
                throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "is a dynamic relocation of moved code (a text relocation)");
            }
            if (r.relocation().symbolIndex() != 0 && r.symbolValue() == 0) {
                continue; // an undefined symbol: another object's code
            }
            MovedFunction m = moved.find(r.value());
            if (m == null) {
                continue;
            }
            ReferenceHandler handler = ReferenceHandler.ofDynamic(type);
            if (handler == null) {
                throw new PatchException(Reason.UNSUPPORTED_RELOCATION,
                        refs.describe(r, "refers to moved code; this dynamic relocation type is not handled"), m.function.address());
            }
            handler.retarget(r, m, moved.mapBranchTarget(r.value()), refs);
        }
    }
}
