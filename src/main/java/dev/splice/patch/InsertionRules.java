package dev.splice.patch;

import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.MovedFunction.Partner;
import dev.splice.isa.Operand;
import dev.splice.patch.PatchException.Reason;
import java.util.List;

/**
 * Where in a decoded function nothing may be inserted: the sequences that must stay together,
 * after an auipc and up to the last instruction completing its pc-relative pair, unless the
 * fragment provably leaves the pair's register alone ({@link WrittenRegisters}: it writes other
 * registers only and calls nothing; both halves are re-encoded for their new addresses anyway),
 * and after an lr up to its sc (the reservation could fail forever).
 */
final class InsertionRules {
    private InsertionRules() {}

    /** Why nothing may be inserted at an address. */
    record Refusal(Reason reason, String message) {}

    /** Refuses the first fragment of {@code m} that lies inside such a sequence (what each writes from {@code fragments}). */
    static void check(MovedFunction m, FragmentAssembler fragments) {
        for (Item frag : m.fragments.values()) {
            Refusal refusal = refusalAt(m, frag.oldAddress);
            if (refusal != null && refusal.reason() == Reason.INSIDE_PC_RELATIVE_PAIR) { // what it writes decides
                long writes = 0;
                for (Insertion insertion : frag.insertions) {
                    writes |= fragments.writes(insertion);
                }
                refusal = refusalAt(m, frag.oldAddress, writes);
            }
            if (refusal != null) {
                throw new PatchException(refusal.reason(), frag.insertions.get(0).fragmentName() + ": " + refusal.message());
            }
        }
    }

    /**
     * The guarded ranges of a function, made once per function (a selection asks at every point):
     * sequence k starts at {@code starts.get(k)} and covers {@code (from[k], to[k]]}, in address order;
     * {@code register[k]} is the register a pair keeps between its halves, -1 for lr/sc.
     */
    record Guards(List<Item> starts, long[] from, long[] to, int[] register) {
        static Guards of(MovedFunction m) {
            List<Item> starts = m.sequenceStarts;
            long[] from = new long[starts.size()];
            long[] to = new long[starts.size()];
            int[] register = new int[starts.size()];
            for (int k = 0; k < from.length; k++) {
                Item item = starts.get(k);
                from[k] = item.oldAddress;
                register[k] = item.kind == Kind.AUIPC ? (int) item.op.operand(item.bits, Operand.RD) : -1;
                to[k] = item.kind == Kind.AUIPC ? pairEnd(item) : Rv.isLoadReserved(item.op) ? reservationEnd(m, item) : item.oldAddress;
            }
            return new Guards(starts, from, to, register);
        }
    }

    /** Why nothing may be inserted at {@code a} in {@code m}, or null when it may, whatever the fragment writes. */
    static Refusal refusalAt(MovedFunction m, long a) {
        return refusalAt(m, a, WrittenRegisters.ALL);
    }

    /**
     * Why a fragment that may change the integer registers {@code writes} (bit k: xk) may not be
     * inserted at {@code a} in {@code m}, or null when it may.
     */
    static Refusal refusalAt(MovedFunction m, long a, long writes) {
        Guards g = m.guards;
        if (g == null) {
            g = Guards.of(m);
            m.guards = g;
        }
        for (int k = 0; k < g.from.length && g.from[k] < a; k++) { // in address order: none later can hold a
            if (a <= g.to[k]) {
                Item item = g.starts.get(k);
                if (item.kind == Kind.AUIPC) {
                    if ((writes >>> g.register[k] & 1) == 0) {
                        continue; // the fragment leaves the pair's register alone
                    }
                    return new Refusal(Reason.INSIDE_PC_RELATIVE_PAIR, "0x" + Long.toHexString(a)
                            + " lies inside the pc-relative pair from the auipc at 0x" + Long.toHexString(item.oldAddress)
                            + " to 0x" + Long.toHexString(g.to[k]) + " in function '" + m.function.name()
                            + "': insert before the auipc or after the pair, or insert a fragment that writes no "
                            + "x" + g.register[k] + " and calls nothing");
                }
                return new Refusal(Reason.INSIDE_LR_SC, "0x" + Long.toHexString(a)
                        + " lies inside the lr/sc sequence starting at 0x" + Long.toHexString(item.oldAddress)
                        + " in function '" + m.function.name() + "': code between them may break the reservation forever");
            }
        }
        return null;
    }

    /** The last instruction completing the auipc's pc-relative pairs. */
    private static long pairEnd(Item auipc) {
        long last = auipc.oldAddress;
        for (Partner p : auipc.partners) {
            last = Math.max(last, p.item().oldAddress);
        }
        return last;
    }

    /** The sc that ends an lr's reservation, or 64 bytes after the lr when none follows within them. */
    private static long reservationEnd(MovedFunction m, Item lr) {
        for (long b = lr.oldAddress + lr.oldSize; m.instructions.containsKey(b) && b - lr.oldAddress <= 64;
                b += m.instructions.get(b).oldSize) {
            if (isStoreConditional(m.instructions.get(b))) {
                return b;
            }
        }
        return lr.oldAddress + 64;
    }

    private static boolean isStoreConditional(Item i) {
        return Rv.isStoreConditional(i.op);
    }
}
