package dev.splice.profile;

import dev.splice.base.BadInputException;
import dev.splice.cfg.EdgeCounters;
import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.profile.EdgeMap.Edge;
import dev.splice.profile.EdgeMap.FunctionMap;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * An instrumented run's profile: the raw counters (8-byte little-endian words, slot by slot, as
 * the runtime writes them at exit) and the binary's {@link EdgeMap} give every edge's count by
 * flow conservation ({@link EdgeCounters}), written as BOLT's fdata in the input's coordinates:
 * one branch line per taken branch, jump, jump-table edge and fall-through that ran (a
 * fall-through from the block's last instruction to the next block's start, as perf2bolt writes
 * them), and one per direct call site that ran and is the first call of its block, to offset 0 of the
 * callee, with its block's count (a later call of the block runs only when the earlier ones return,
 * which no counter says).
 */
public final class EdgeProfile {
    private EdgeProfile() {}

    /**
     * The counters file's words.
     *
     * @param bytes the file's contents
     * @param map the binary's map
     * @param where names the file in messages
     * @return the counters, one per slot
     * @throws BadInputException when the file is shorter than the map's slots
     */
    public static long[] counters(byte[] bytes, EdgeMap map, String where) {
        if (bytes.length < 8L * map.slots()) {
            throw new BadInputException(where + ": " + bytes.length + " bytes, but the binary has " + map.slots()
                    + " counters (" + 8L * map.slots() + " bytes): not this binary's counters, or a truncated file");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long[] out = new long[map.slots()];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getLong(8 * i);
        }
        return out;
    }

    /**
     * Every edge count of one function.
     *
     * @param f the function's map
     * @param counters all counters
     * @return the counts, in the order of {@code f.edges()}
     * @throws BadInputException when the counters contradict flow conservation
     */
    public static long[] edgeCounts(FunctionMap f, long[] counters) {
        return edgeCounts(f, counters, 0, true);
    }

    /**
     * Every edge count of every function of a map. Functions whose entry their callers count
     * ({@link EdgeMap#FROM_CALLS}) come after the others: their entry is the sum of the in-flows
     * of the blocks of the call sites that name them (their callers are counted functions, or
     * themselves: a recursive call's block does not depend on the entry, which instrument
     * checked, so it is read from the counts with the entry at 0).
     *
     * @param map the instrumented binary's map
     * @param counters the run's counters
     * @return per function of the map (same order), its edge counts
     * @throws BadInputException when the counters contradict flow conservation
     */
    public static List<long[]> edgeCounts(EdgeMap map, long[] counters) {
        List<long[]> out = new ArrayList<>(java.util.Collections.nCopies(map.functions().size(), (long[]) null));
        java.util.Map<String, Long> entries = new java.util.HashMap<>();
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < map.functions().size(); k++) {
                FunctionMap f = map.functions().get(k);
                if (fromCalls(f) != (pass == 1)) {
                    continue;
                }
                long entry = 0;
                if (pass == 1) {
                    entry = entries.getOrDefault(f.name(), 0L) + callsOf(f, f.name(), edgeCounts(f, counters, 0, false));
                }
                long[] count = edgeCounts(f, counters, entry, true);
                out.set(k, count);
                if (pass == 0) {
                    long[] inflow = inflow(f, count);
                    for (EdgeMap.Call c : f.calls()) {
                        if (c.callee() != null) {
                            entries.merge(c.callee(), inflow[c.block()], Long::sum);
                        }
                    }
                }
            }
        }
        return out;
    }

    private static boolean fromCalls(FunctionMap f) {
        return f.edges().stream().anyMatch(e -> e.slot() == EdgeMap.FROM_CALLS);
    }

    /** The sum of the in-flows of the blocks of f's call sites that name {@code callee}. */
    private static long callsOf(FunctionMap f, String callee, long[] count) {
        long[] inflow = inflow(f, count);
        long sum = 0;
        for (EdgeMap.Call c : f.calls()) {
            if (callee.equals(c.callee())) {
                sum += inflow[c.block()];
            }
        }
        return sum;
    }

    private static long[] inflow(FunctionMap f, long[] count) {
        long[] inflow = new long[f.nodes()];
        for (int i = 0; i < count.length; i++) {
            inflow[f.edges().get(i).to()] += count[i];
        }
        return inflow;
    }

    private static long[] edgeCounts(FunctionMap f, long[] counters, long entry, boolean checked) {
        List<EdgeCounters.Edge> network = new ArrayList<>(f.edges().size());
        List<Integer> counted = new ArrayList<>();
        for (int i = 0; i < f.edges().size(); i++) {
            Edge e = f.edges().get(i);
            boolean known = e.slot() >= 0 || e.slot() == EdgeMap.FROM_CALLS;
            network.add(new EdgeCounters.Edge(e.from(), e.to(), 0, known));
            if (known) {
                counted.add(i);
            }
        }
        long[] values = new long[counted.size()];
        for (int k = 0; k < values.length; k++) {
            int slot = f.edges().get(counted.get(k)).slot();
            values[k] = slot == EdgeMap.FROM_CALLS ? entry : counters[slot];
        }
        try {
            EdgeCounters plan = EdgeCounters.of(f.nodes(), network, counted.stream().mapToInt(Integer::intValue).toArray());
            return checked ? plan.edgeCounts(values) : plan.flows(values);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(f.name() + ": " + e.getMessage() + " (were other threads inside it at exit?)");
        }
    }

    /**
     * The fdata profile of a run.
     *
     * @param map the instrumented binary's map
     * @param counters the run's counters
     * @return the profile (branch lines, function by function in map order)
     * @throws BadInputException when counters contradict flow conservation
     */
    public static Fdata fdata(EdgeMap map, long[] counters) {
        List<Fdata.Branch> branches = new ArrayList<>();
        List<long[]> counts = edgeCounts(map, counters);
        for (int k = 0; k < counts.size(); k++) {
            FunctionMap f = map.functions().get(k);
            long[] count = counts.get(k);
            long[] inflow = new long[f.nodes()];
            for (int i = 0; i < count.length; i++) {
                Edge e = f.edges().get(i);
                inflow[e.to()] += count[i];
                boolean branch = e.kind() == EdgeKind.TAKEN || e.kind() == EdgeKind.JUMP || e.kind() == EdgeKind.TABLE
                        || e.kind() == EdgeKind.FALL_THROUGH || e.kind() == EdgeKind.TAKEN_OR_FALL_THROUGH;
                if (branch && count[i] > 0) {
                    branches.add(new Fdata.Branch(new Fdata.Location(f.name(), e.fromOffset()),
                            new Fdata.Location(f.name(), e.toOffset()), 0, count[i]));
                }
            }
            // The first call of a block runs as often as the block is entered; a later one only when the
            // calls before it returned, which no counter says: it gets no line (exact or nothing).
            java.util.Set<Integer> blocksWithACall = new java.util.HashSet<>();
            List<EdgeMap.Call> calls = new ArrayList<>(f.calls());
            calls.sort(java.util.Comparator.comparingInt(EdgeMap.Call::offset));
            for (EdgeMap.Call c : calls) {
                if (!blocksWithACall.add(c.block())) {
                    continue;
                }
                if (c.callee() != null && inflow[c.block()] > 0) {
                    branches.add(new Fdata.Branch(new Fdata.Location(f.name(), c.offset()), new Fdata.Location(c.callee(), 0),
                            0, inflow[c.block()]));
                }
            }
        }
        return new Fdata(false, List.of(), branches, List.of(), false);
    }
}
