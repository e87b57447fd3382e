package dev.splice.cfg;

import dev.splice.cfg.FunctionEdges.FlowEdge;
import java.util.List;

/**
 * Estimated edge frequencies for the spanning tree (Ball and Larus weight loops up): a block's
 * loop depth is the number of backward edges (to a block at or before their source, in address
 * order) whose range of blocks holds it; an edge's weight is 10 to the depth of the shallower of
 * its ends, shared among its source's out-edges, with a small bias towards keeping the dearer
 * probes (a branch re-evaluated, then an unconditional counter) in the tree.
 */
final class Frequencies {
    private static final int MAX_DEPTH = 6;

    private Frequencies() {}

    static long[] estimate(int blocks, List<FlowEdge> edges) {
        int[] farthestSource = new int[blocks];
        java.util.Arrays.fill(farthestSource, -1);
        int[] outDegree = new int[blocks + 1];
        for (FlowEdge e : edges) {
            outDegree[e.from()]++;
            if (e.from() < blocks && e.to() < blocks && e.to() <= e.from()) {
                farthestSource[e.to()] = Math.max(farthestSource[e.to()], e.from());
            }
        }
        int[] depth = new int[blocks + 1];
        for (int head = 0; head < blocks; head++) {
            for (int x = head; x <= farthestSource[head]; x++) {
                depth[x]++;
            }
        }
        long[] weight = new long[edges.size()];
        for (int i = 0; i < edges.size(); i++) {
            FlowEdge e = edges.get(i);
            int d = Math.min(MAX_DEPTH, Math.min(depth[e.from()], depth[e.to()]));
            long frequency = pow10(d) * 1000 / Math.max(1, outDegree[e.from()]);
            int cost = switch (e.probe()) {
                case BEFORE_IF_TAKEN -> 2;
                case BEFORE -> 1;
                default -> 0;
            };
            weight[i] = frequency * 4 + cost;
        }
        return weight;
    }

    private static long pow10(int d) {
        long p = 1;
        for (int i = 0; i < d; i++) {
            p *= 10;
        }
        return p;
    }
}
