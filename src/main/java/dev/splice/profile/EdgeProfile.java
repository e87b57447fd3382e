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
        List<EdgeCounters.Edge> network = new ArrayList<>(f.edges().size());
        List<Integer> counted = new ArrayList<>();
        for (int i = 0; i < f.edges().size(); i++) {
            Edge e = f.edges().get(i);
            network.add(new EdgeCounters.Edge(e.from(), e.to(), 0, e.slot() >= 0));
            if (e.slot() >= 0) {
                counted.add(i);
            }
        }
        long[] values = new long[counted.size()];
        for (int k = 0; k < values.length; k++) {
            values[k] = counters[f.edges().get(counted.get(k)).slot()];
        }
        try {
            return EdgeCounters.of(f.nodes(), network, counted.stream().mapToInt(Integer::intValue).toArray())
                    .edgeCounts(values);
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
        for (FunctionMap f : map.functions()) {
            long[] count = edgeCounts(f, counters);
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
