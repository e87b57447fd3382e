package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GOT_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_JUMP;

import dev.splice.elf.reloc.RiscVRelocations;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Bulk mode's check of the functions too small for the far jump at their old entry (under 8
 * bytes): such a function can move only when nothing needs its old entry, since the copy will be
 * out of a {@code jal}'s reach. With {@code --emit-relocs} every reference is a relocation; the
 * ones that keep going through an old entry are short branches and jumps ({@code JAL},
 * {@code BRANCH}, {@code RVC_*}) from code that stays, which cannot reach the copy, and loads of
 * GOT slots; the old entry also serves code before it that may fall through. Such functions are left in place up
 * front (to the fixpoint: a tiny function left in place is code that stays), so that the rewrite
 * does not find them one retry at a time; {@link Trampolines#write} checks the same exactly.
 */
final class TinyFunctions {
    /** Why a function whose address is loaded from the GOT keeps its old entry. */
    static final String GOT_USER = "its address is loaded from a GOT slot, which keeps the old entry";

    private TinyFunctions() {}

    /**
     * Removes from {@code decoded} (the movable functions, in address order) each function under 8
     * bytes whose old entry would still be used, adding it to {@code skipped} with the reason.
     */
    static void keepUsedEntries(Input in, List<MovedFunction> decoded, List<Rewrite.Skipped> skipped) {
        Map<Long, MovedFunction> tiny = new HashMap<>();
        for (MovedFunction m : decoded) {
            if (m.function.size() < BranchForm.FAR_JUMP.size()) {
                tiny.put(m.function.address(), m);
            }
        }
        if (tiny.isEmpty()) {
            return;
        }
        Set<Long> got = gotLoaded(in);
        Map<MovedFunction, List<Reloc>> shortReferences = new HashMap<>();
        for (Reloc r : in.relocations().all()) {
            int type = r.type();
            if (type == R_RISCV_JAL || type == R_RISCV_BRANCH || type == R_RISCV_RVC_JUMP || type == R_RISCV_RVC_BRANCH) {
                MovedFunction m = tiny.get(r.value());
                if (m != null) {
                    shortReferences.computeIfAbsent(m, k -> new ArrayList<>()).add(r);
                }
            }
        }
        Set<MovedFunction> left = Collections.newSetFromMap(new IdentityHashMap<>());
        List<MovedFunction> moving = new ArrayList<>(decoded);
        Set<Long> starts = new HashSet<>();
        moving.forEach(m -> starts.add(m.function.address()));
        boolean changed = true;
        while (changed) { // a tiny function left in place is code that stays: its own jumps count then
            changed = false;
            for (Iterator<MovedFunction> it = moving.iterator(); it.hasNext(); ) {
                MovedFunction m = it.next();
                if (tiny.get(m.function.address()) != m) {
                    continue;
                }
                String why = null;
                if (Trampolines.mayFallIntoTiny(in, starts::contains, m.function.address())) {
                    why = "code before it, which stays, may fall through into it";
                } else if (got.contains(m.function.address())) {
                    why = GOT_USER;
                }
                for (Reloc r : shortReferences.getOrDefault(m, List.of())) {
                    if (why == null && !inside(moving, r.offset())) {
                        why = RiscVRelocations.name(r.type()) + " at 0x" + Long.toHexString(r.offset()) + " in "
                                + r.target().name() + ", in code that stays, cannot reach the copy";
                    }
                }
                if (why != null) {
                    it.remove();
                    starts.remove(m.function.address());
                    left.add(skip(m, why, skipped));
                    changed = true;
                }
            }
        }
        decoded.removeIf(left::contains);
    }

    /**
     * The entries whose address code loads from a GOT slot ({@code R_RISCV_GOT_HI20}): the slot
     * keeps the old entry (its word has no relocation of its own in a static executable), so the
     * old entry stays used.
     */
    static Set<Long> gotLoaded(Input in) {
        Set<Long> out = new HashSet<>();
        for (Reloc r : in.relocations().all()) {
            if (r.type() == R_RISCV_GOT_HI20) {
                out.add(r.value());
            }
        }
        return out;
    }

    private static MovedFunction skip(MovedFunction m, String why, List<Rewrite.Skipped> skipped) {
        skipped.add(new Rewrite.Skipped(m.function.name(), m.function.address(), Reason.TOO_SMALL, m.function.name() + ": "
                + m.function.size() + " bytes, too few for the far jump to its copy, and its old entry is still used: " + why));
        return m;
    }

    /** Whether {@code address} is inside one of {@code functions} (in address order). */
    private static boolean inside(List<MovedFunction> functions, long address) {
        int lo = 0;
        int hi = functions.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            MovedFunction m = functions.get(mid);
            if (address < m.function.address()) {
                hi = mid - 1;
            } else if (address >= m.function.endAddress()) {
                lo = mid + 1;
            } else {
                return true;
            }
        }
        return false;
    }
}
