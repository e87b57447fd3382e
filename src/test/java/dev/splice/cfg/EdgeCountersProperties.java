package dev.splice.cfg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Counters on the complement of a spanning tree, over random graphs and random valid flows: every
 * edge's count comes back exactly from the counters, the number of counters is the minimum
 * (edges minus nodes plus connected components), no uncountable edge is counted, and the plan is
 * refused exactly when the uncountable edges hold a cycle. Plans read back with
 * {@link EdgeCounters#of} give the same counts.
 */
class EdgeCountersProperties {
    @Property(tries = 400)
    void everyEdgeCountIsRecoveredFromTheCounters(@ForAll @IntRange(min = 1, max = 40) int nodes,
                                                  @ForAll @IntRange(min = 0, max = 120) int extraEdges,
                                                  @ForAll long seed) {
        Random random = new Random(seed);
        List<EdgeCounters.Edge> edges = randomGraph(nodes, extraEdges, random);
        boolean uncountableCycle = hasCycle(nodes, edges.stream().filter(e -> !e.countable()).toList());
        if (uncountableCycle) {
            assertThrows(EdgeCounters.UncountableCycleException.class, () -> EdgeCounters.choose(nodes, edges));
            return;
        }
        EdgeCounters plan = EdgeCounters.choose(nodes, edges);
        assertEquals(edges.size() - nodes + components(nodes, edges), plan.counted().length, "a counter per non-tree edge");
        for (int c : plan.counted()) {
            assertTrue(edges.get(c).countable(), "edge " + c + " is countable");
        }
        for (int round = 0; round < 3; round++) {
            long[] flow = Circulations.random(nodes, edges, 0, random.nextInt(20), random);
            long[] counters = Circulations.countersOf(plan, flow);
            assertArrayEquals(flow, plan.edgeCounts(counters));
            assertArrayEquals(flow, EdgeCounters.of(nodes, edges, plan.counted()).edgeCounts(counters));
        }
    }

    @Property(tries = 200)
    void anyCountersGiveAConservedFlowOrAreRefused(@ForAll @IntRange(min = 1, max = 30) int nodes,
                                                   @ForAll @IntRange(min = 0, max = 60) int extraEdges,
                                                   @ForAll long seed) {
        Random random = new Random(seed);
        List<EdgeCounters.Edge> edges = randomGraph(nodes, extraEdges, random).stream()
                .map(e -> new EdgeCounters.Edge(e.from(), e.to(), e.weight(), true)).toList();
        EdgeCounters plan = EdgeCounters.choose(nodes, edges);
        long[] counters = new long[plan.counted().length];
        for (int k = 0; k < counters.length; k++) {
            counters[k] = random.nextInt(5);
        }
        long[] counts;
        try {
            counts = plan.edgeCounts(counters);
        } catch (IllegalArgumentException refused) {
            return; // some edge would need a negative count
        }
        for (int k = 0; k < counters.length; k++) {
            assertEquals(counters[k], counts[plan.counted()[k]]);
        }
        long[] balance = new long[nodes];
        for (int i = 0; i < edges.size(); i++) {
            assertTrue(counts[i] >= 0);
            balance[edges.get(i).to()] += counts[i];
            balance[edges.get(i).from()] -= counts[i];
        }
        assertArrayEquals(new long[nodes], balance, "conserved at every node");
    }

    @Property(tries = 50)
    void aCycleOfUncountableEdgesIsRefused(@ForAll @IntRange(min = 1, max = 10) int length) {
        List<EdgeCounters.Edge> edges = new ArrayList<>();
        for (int n = 0; n < length; n++) {
            edges.add(new EdgeCounters.Edge(n, (n + 1) % length, 1, false));
        }
        EdgeCounters.UncountableCycleException e =
                assertThrows(EdgeCounters.UncountableCycleException.class, () -> EdgeCounters.choose(length, edges));
        assertFalse(edges.get(e.edge()).countable());
    }

    /** A graph where every node has an out-edge: a ring through all nodes, then random extra edges. */
    static List<EdgeCounters.Edge> randomGraph(int nodes, int extra, Random random) {
        List<EdgeCounters.Edge> edges = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            int to = random.nextInt(4) == 0 ? random.nextInt(nodes) : (n + 1) % nodes;
            edges.add(new EdgeCounters.Edge(n, to, random.nextInt(1000), random.nextInt(8) != 0));
        }
        for (int i = 0; i < extra; i++) {
            edges.add(new EdgeCounters.Edge(random.nextInt(nodes), random.nextInt(nodes), random.nextInt(1000),
                    random.nextInt(8) != 0));
        }
        return edges;
    }

    static int components(int nodes, List<EdgeCounters.Edge> edges) {
        int[] parent = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            parent[i] = i;
        }
        int components = nodes;
        for (EdgeCounters.Edge e : edges) {
            int a = find(parent, e.from());
            int b = find(parent, e.to());
            if (a != b) {
                parent[a] = b;
                components--;
            }
        }
        return components;
    }

    static boolean hasCycle(int nodes, List<EdgeCounters.Edge> edges) {
        return nodes - components(nodes, edges) < edges.size();
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            x = parent[x];
        }
        return x;
    }
}
