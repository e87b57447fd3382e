package dev.splice.cfg;

import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import java.util.ArrayList;
import java.util.List;

/**
 * Estimated edge frequencies for the spanning tree (Ball and Larus weight loops up): every
 * backward branch or jump (to an offset at or before its own) spans a loop, the code from its
 * target to itself; an edge's loop depth is the number of loops that hold both its ends, and its
 * weight 10 to that depth, shared among its source's out-edges, with a small bias towards keeping
 * the dearer probes (a branch re-evaluated, then an unconditional counter) in the tree.
 */
final class Frequencies {
    private static final int MAX_DEPTH = 6;

    private Frequencies() {}

    static long[] estimate(int nodes, List<FlowEdge> edges) {
        int[] outDegree = new int[nodes];
        List<int[]> loops = new ArrayList<>();
        for (FlowEdge e : edges) {
            outDegree[e.from()]++;
            boolean branch = e.kind() == EdgeKind.TAKEN || e.kind() == EdgeKind.JUMP || e.kind() == EdgeKind.TAKEN_OR_FALL_THROUGH;
            if (branch && e.toOffset() >= 0 && e.toOffset() <= e.fromOffset()) {
                loops.add(new int[] {e.toOffset(), e.fromOffset()});
            }
        }
        long[] weight = new long[edges.size()];
        for (int i = 0; i < edges.size(); i++) {
            FlowEdge e = edges.get(i);
            int a = e.fromOffset() >= 0 ? e.fromOffset() : e.toOffset();
            int b = e.toOffset() >= 0 ? e.toOffset() : e.fromOffset();
            int depth = 0;
            if (e.kind() != EdgeKind.ENTRY) {
                for (int[] loop : loops) {
                    if (Math.min(a, b) >= loop[0] && Math.max(a, b) <= loop[1]) {
                        depth++;
                    }
                }
            }
            if (e.kind() == EdgeKind.ENTRY || e.kind() == EdgeKind.EXIT || e.kind() == EdgeKind.LEAVES) {
                depth = 0;
            }
            long frequency = pow10(Math.min(MAX_DEPTH, depth)) * 1000 / Math.max(1, outDegree[e.from()]);
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
