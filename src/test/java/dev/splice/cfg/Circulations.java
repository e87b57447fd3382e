package dev.splice.cfg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random valid flows (circulations: what enters a node leaves it) on a graph, as sums of cycles:
 * a random walk from a start node until it revisits a node adds a random multiple of the cycle it
 * closed. Every walk continues as long as each node it reaches has an out-edge.
 */
final class Circulations {
    private Circulations() {}

    static long[] random(int nodes, List<EdgeCounters.Edge> edges, int start, int cycles, Random random) {
        List<List<Integer>> out = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            out.add(new ArrayList<>());
        }
        for (int i = 0; i < edges.size(); i++) {
            out.get(edges.get(i).from()).add(i);
        }
        long[] flow = new long[edges.size()];
        for (int c = 0; c < cycles; c++) {
            List<Integer> pathNodes = new ArrayList<>(List.of(start));
            List<Integer> pathEdges = new ArrayList<>();
            int at = start;
            while (!out.get(at).isEmpty()) {
                int e = out.get(at).get(random.nextInt(out.get(at).size()));
                int to = edges.get(e).to();
                int seen = pathNodes.indexOf(to);
                pathEdges.add(e);
                if (seen >= 0) {
                    long times = 1 + random.nextInt(random.nextBoolean() ? 3 : 1000);
                    for (int k = seen; k < pathEdges.size(); k++) {
                        flow[pathEdges.get(k)] += times;
                    }
                    break;
                }
                pathNodes.add(to);
                at = to;
            }
        }
        return flow;
    }

    static long[] countersOf(EdgeCounters plan, long[] flow) {
        int[] counted = plan.counted();
        long[] counters = new long[counted.length];
        for (int k = 0; k < counted.length; k++) {
            counters[k] = flow[counted[k]];
        }
        return counters;
    }
}
