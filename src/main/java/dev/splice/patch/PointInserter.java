package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.Point.Refusal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Insertion at the points of specs: the required insertions ({@code --insert}, explicit specs)
 * must all succeed; the points a pattern selected are optional. When a later stage refuses a
 * function (a branch that can no longer reach, a function too small for the jump to its copy,
 * unwind information it cannot migrate), the optional points of that function are left out, with
 * the refusal, and the rewrite is retried, as bulk insertion does with function entries.
 */
final class PointInserter {
    private PointInserter() {}

    /** Refusals of what the user wrote, not of a function: leaving points out would not help. */
    private static final Set<Reason> ABOUT_THE_FRAGMENT = EnumSet.of(Reason.BAD_LISTING, Reason.TARGET_MISMATCH,
            Reason.FRAGMENT_NOT_CODE, Reason.FRAGMENT_LEAVES_ITSELF, Reason.FRAGMENT_USES_PC, Reason.CONFLICTING_POLICIES);

    /** One insertion, in the order of the command line; {@code point} is set for a pattern's (optional) point. */
    record Planned(Insertion insertion, Point point) {
        boolean optional() {
            return point != null && !point.kind().isExplicit();
        }
    }

    /** What was inserted and what was left out. */
    record Outcome(byte[] bytes, List<Point> inserted, List<Point> refused) {}

    /**
     * Rewrites {@code elf} with {@code planned}; {@code in} is what the selector read (null when the
     * binary is refused as a whole: then the first insertion meets that refusal), {@code predecoded}
     * the functions it decoded (the first attempt takes them over). {@code refused}
     * (the points refused by selection) is extended by the points later stages refuse, unless
     * {@code strict}, where such a refusal fails the rewrite; {@code counters} as for {@link Inserter#insert}.
     */
    static Outcome insert(ElfFile elf, Input in, Map<Long, MovedFunction> predecoded, List<Planned> planned, List<Point> refused, boolean strict,
                          Counters counters) {
        List<Planned> live = new ArrayList<>(planned);
        List<Point> left = new ArrayList<>(refused);
        if (live.isEmpty()) {
            return new Outcome(elf.toBytes(), List.of(), List.copyOf(left));
        }
        if (in == null) { // the binary is refused as a whole: the required insertions meet that refusal
            List<Insertion> all = new ArrayList<>();
            live.forEach(p -> all.add(p.insertion()));
            return new Outcome(Inserter.insert(elf, all, counters), List.of(), List.copyOf(left));
        }
        Input.requireInsertable(elf);
        if (!strict) {
            leaveOutUsedTinyEntries(elf, in, predecoded, live, left);
        }
        FragmentAssembler fragments = Inserter.fragmentAssembler(in, counters, live.size());
        for (int attempt = 0; ; attempt++) {
            List<Insertion> all = new ArrayList<>(live.size());
            live.forEach(p -> all.add(p.insertion()));
            try {
                byte[] out = all.isEmpty() ? elf.toBytes()
                        : attempt == 0 ? Inserter.rewrite(in, all, predecoded, fragments, counters)
                        : Inserter.rewrite(in, all, Map.of(), fragments.copy(), counters);
                List<Point> inserted = new ArrayList<>();
                live.stream().filter(p -> p.point() != null).forEach(p -> inserted.add(p.point()));
                return new Outcome(out, List.copyOf(inserted), List.copyOf(left));
            } catch (PatchException e) {
                long f = e.functionAddress();
                List<Planned> dropped = f < 0 || strict || ABOUT_THE_FRAGMENT.contains(e.reason()) ? List.<Planned>of() : live.stream()
                        .filter(p -> p.optional() && functionOf(elf, p) == f).toList();
                boolean required = live.stream().anyMatch(p -> !p.optional() && functionOf(elf, p) == f);
                if (dropped.isEmpty() || required) {
                    throw e;
                }
                removeEach(live, dropped);
                Refusal why = new Refusal(e.reason(), e.getMessage());
                for (Planned p : dropped) {
                    Point q = p.point();
                    left.add(new Point(q.kind(), q.address(), q.function(), q.offset(), q.spec(), why));
                }
            }
        }
    }

    /**
     * Leaves out up front the optional points of functions under 8 bytes whose old entry stays
     * used ({@link TinyFunctions}, as bulk mode does over the functions that will move), so that
     * no retry is spent on them; a function with a required point is left to the exact check.
     */
    private static void leaveOutUsedTinyEntries(ElfFile elf, Input in, Map<Long, MovedFunction> predecoded, List<Planned> live,
                                                List<Point> left) {
        java.util.TreeMap<Long, MovedFunction> moving = new java.util.TreeMap<>();
        Map<Long, List<Planned>> byFunction = new java.util.HashMap<>();
        for (Planned p : live) {
            long f = functionOf(elf, p);
            byFunction.computeIfAbsent(f, k -> new ArrayList<>()).add(p);
            MovedFunction m = predecoded.get(f);
            if (m != null) {
                moving.put(f, m);
            }
        }
        List<MovedFunction> decoded = new ArrayList<>(moving.values());
        List<Rewrite.Skipped> skipped = new ArrayList<>();
        TinyFunctions.keepUsedEntries(in, decoded, skipped);
        List<Planned> gone = new ArrayList<>(); // removed in one pass: one per skipped function was quadratic
        for (Rewrite.Skipped s : skipped) {
            List<Planned> points = byFunction.get(s.address());
            if (points.stream().allMatch(Planned::optional)) {
                gone.addAll(points);
                Refusal why = new Refusal(s.reason(), s.message());
                for (Planned p : points) {
                    Point q = p.point();
                    left.add(new Point(q.kind(), q.address(), q.function(), q.offset(), q.spec(), why));
                }
            }
        }
        if (!gone.isEmpty()) {
            removeEach(live, gone);
        }
    }

    /**
     * Removes {@code gone} (elements of {@code live}) from {@code live} in one pass, by identity:
     * {@link List#removeAll} compares every element with every one to remove through the records'
     * equals, quadratic with 20,000 points (and every equal element is in {@code gone} anyway).
     */
    private static void removeEach(List<Planned> live, List<Planned> gone) {
        Set<Planned> set = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        set.addAll(gone);
        live.removeIf(set::contains);
    }

    private static long functionOf(ElfFile elf, Planned p) {
        Point q = p.point();
        if (q != null && q.function() != null) {
            return q.address() - q.offset();
        }
        return elf.functionContaining(p.insertion().address()).map(dev.splice.elf.Function::address).orElse(-1L);
    }
}
