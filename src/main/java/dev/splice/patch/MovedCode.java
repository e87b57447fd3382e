package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The functions that move, by start address, and where their code went once laid out: the new
 * address of a branch target, of fall-through and of an instruction. Every pass that rewrites a
 * reference asks here, so the lookup by address is a binary search over arrays rebuilt only when
 * the set changes (and built before threads share it).
 */
final class MovedCode {
    private final String file;
    private final TreeMap<Long, MovedFunction> byStart = new TreeMap<>();
    /** {@link #byStart} as sorted arrays for {@link #find}; null when they must be rebuilt. */
    private long[] starts;
    private MovedFunction[] byIndex;

    MovedCode(String file) {
        this.file = file;
    }

    /** The moved function containing {@code address}, or null. */
    MovedFunction find(long address) {
        if (starts == null) {
            byIndex = byStart.values().toArray(new MovedFunction[0]);
            starts = new long[byIndex.length];
            for (int i = 0; i < byIndex.length; i++) {
                starts[i] = byIndex[i].function.address();
            }
        }
        int lo = 0;
        int hi = starts.length - 1;
        int floor = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] <= address) {
                floor = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return floor >= 0 && byIndex[floor].contains(address) ? byIndex[floor] : null;
    }

    /** The moved functions in address order. */
    Collection<MovedFunction> functions() {
        return byStart.values();
    }

    /** The moved function starting at {@code address}, or null. */
    MovedFunction startingAt(long address) {
        return byStart.get(address);
    }

    /** The first moved function starting after {@code address}, or null. */
    MovedFunction after(long address) {
        Map.Entry<Long, MovedFunction> next = byStart.higherEntry(address);
        return next == null ? null : next.getValue();
    }

    /** The function {@code f} as moved, added when it is not yet. */
    MovedFunction add(Function f) {
        MovedFunction m = byStart.computeIfAbsent(f.address(), k -> new MovedFunction(f));
        starts = null;
        return m;
    }

    /** Adds {@code m} (replacing any moved function with its start). */
    void put(MovedFunction m) {
        byStart.put(m.function.address(), m);
        starts = null;
    }

    /** Where a reference to {@code address} goes now, following the insertion's branch target policy. */
    long mapBranchTarget(long address) {
        Item i = branchTargetItem(address);
        return i == null ? address : i.newAddress;
    }

    /**
     * The item whose new address {@link #mapBranchTarget} gives for {@code address} (the same before
     * and after layout), or null when {@code address} does not move.
     */
    Item branchTargetItem(long address) {
        MovedFunction m = find(address);
        if (m == null) {
            return null;
        }
        Item i = instructionAt(m, address);
        Item frag = i.fragment;
        return frag != null && frag.policy == BranchTarget.INSERTED ? frag : i;
    }

    /** Where execution reaching {@code address} by fall-through starts now (fragment first). */
    long mapFallThrough(long address) {
        Item i = fallThroughItem(address);
        return i == null ? address : i.newAddress;
    }

    /** The item whose new address {@link #mapFallThrough} gives for {@code address}, or null when it does not move. */
    Item fallThroughItem(long address) {
        MovedFunction m = find(address);
        if (m == null) {
            return null;
        }
        Item i = instructionAt(m, address);
        return i.fragment != null ? i.fragment : i;
    }

    /** The new address of the original instruction at {@code address} (skipping any fragment). */
    long mapInstruction(long address) {
        MovedFunction m = find(address);
        return m == null ? address : instructionAt(m, address).newAddress;
    }

    private Item instructionAt(MovedFunction m, long address) {
        Item i = m.instructions.get(address);
        if (i == null) {
            throw new PatchException(PatchException.Reason.NOT_AN_INSTRUCTION_BOUNDARY, file + ": a reference to 0x" + Long.toHexString(address) + " points inside function '"
                    + m.function.name() + "' but not at an instruction boundary");
        }
        return i;
    }
}
