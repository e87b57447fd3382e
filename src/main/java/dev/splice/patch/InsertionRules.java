package dev.splice.patch;

import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.MovedFunction.Partner;
import dev.splice.patch.PatchException.Reason;

/**
 * Where in a decoded function nothing may be inserted: the sequences that must stay together,
 * after an auipc and up to the last instruction completing its pc-relative pair (a fragment could
 * clobber the register, and the pair must stay recognisable), and after an lr up to its sc (the
 * reservation could fail forever).
 */
final class InsertionRules {
    private InsertionRules() {}

    /** Why nothing may be inserted at an address. */
    record Refusal(Reason reason, String message) {}

    /** Refuses the first fragment of {@code m} that lies inside such a sequence. */
    static void check(MovedFunction m) {
        for (Item frag : m.fragments.values()) {
            Refusal refusal = refusalAt(m, frag.oldAddress);
            if (refusal != null) {
                throw new PatchException(refusal.reason(), frag.insertions.get(0).fragmentName() + ": " + refusal.message());
            }
        }
    }

    /** Why nothing may be inserted at {@code a} in {@code m}, or null when it may. */
    static Refusal refusalAt(MovedFunction m, long a) {
        for (Item item : m.sequenceStarts) {
            if (item.kind == Kind.AUIPC) {
                long last = item.oldAddress;
                for (Partner p : item.partners) {
                    last = Math.max(last, p.item().oldAddress);
                }
                if (a > item.oldAddress && a <= last) {
                    return new Refusal(Reason.INSIDE_PC_RELATIVE_PAIR, "0x" + Long.toHexString(a)
                            + " lies inside the pc-relative pair from the auipc at 0x" + Long.toHexString(item.oldAddress)
                            + " to 0x" + Long.toHexString(last) + " in function '" + m.function.name()
                            + "': insert before the auipc or after the pair");
                }
            }
            if (Rv.isLoadReserved(item.op)) {
                long sc = -1;
                for (long b = item.oldAddress + item.oldSize; m.instructions.containsKey(b) && b - item.oldAddress <= 64;
                        b += m.instructions.get(b).oldSize) {
                    if (isStoreConditional(m.instructions.get(b))) {
                        sc = b;
                        break;
                    }
                }
                if (a > item.oldAddress && (sc < 0 ? a <= item.oldAddress + 64 : a <= sc)) {
                    return new Refusal(Reason.INSIDE_LR_SC, "0x" + Long.toHexString(a)
                            + " lies inside the lr/sc sequence starting at 0x" + Long.toHexString(item.oldAddress)
                            + " in function '" + m.function.name() + "': code between them may break the reservation forever");
                }
            }
        }
        return null;
    }

    private static boolean isStoreConditional(Item i) {
        return Rv.isStoreConditional(i.op);
    }
}
