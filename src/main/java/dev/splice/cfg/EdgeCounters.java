package dev.splice.cfg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Edge counters on the complement of a spanning tree (Knuth, "Optimal measurement points for
 * program frequency counts", 1973; Ball and Larus, "Optimally profiling and tracing programs",
 * 1994): in a graph where flow is conserved at every node (what enters a node leaves it), counting
 * the edges outside a spanning tree is enough to know every edge's count exactly, and no smaller
 * set of counted edges is.
 *
 * <p>A function's graph becomes such a graph with one virtual node that enters its entry points and
 * that its exits enter ({@link FunctionEdges}). The tree is a maximum spanning forest (Kruskal) by
 * estimated frequency, so that counters land on the edges expected to run least; edges that cannot
 * carry a counter go into the tree first. Pure graph code: nodes are numbers, edges are records.
 */
public final class EdgeCounters {
    /**
     * One directed edge.
     *
     * @param from its source node
     * @param to its target node
     * @param weight its estimated frequency (higher: more likely kept out of the counters)
     * @param countable whether a counter can be placed on it at all
     */
    public record Edge(int from, int to, long weight, boolean countable) {}

    /** No spanning tree holds every edge that cannot carry a counter. */
    public static final class UncountableCycleException extends EdgeProfileException {
        private static final long serialVersionUID = 1L;

        /** The index of an uncountable edge that would have to carry a counter. */
        private final int edge;

        UncountableCycleException(int edge) {
            super("edge " + edge + " cannot carry a counter but closes a cycle of such edges");
            this.edge = edge;
        }

        /** {@return the index of an uncountable edge that would have to carry a counter} */
        public int edge() {
            return edge;
        }
    }

    private final int nodes;
    private final List<Edge> edges;
    private final int[] counted;

    private EdgeCounters(int nodes, List<Edge> edges, int[] counted) {
        this.nodes = nodes;
        this.edges = edges;
        this.counted = counted;
    }

    /**
     * Chooses the counted edges: every edge outside a maximum spanning forest, the uncountable
     * edges put into the forest first, then the others by weight, heaviest first (ties: the later
     * edge first, so that the choice is deterministic).
     *
     * @param nodes the number of nodes (numbered from 0)
     * @param edges the edges
     * @return the plan
     * @throws UncountableCycleException if uncountable edges form a cycle (ignoring directions):
     *     one of them would have to be counted
     */
    public static EdgeCounters choose(int nodes, List<Edge> edges) {
        List<Edge> all = List.copyOf(edges);
        Integer[] order = IntStream.range(0, all.size()).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.<Integer>comparingInt(i -> all.get(i).countable() ? 1 : 0)
                .thenComparing(i -> -all.get(i).weight())
                .thenComparing(i -> -i));
        int[] parent = IntStream.range(0, nodes).toArray();
        BitSet tree = new BitSet(all.size());
        for (int i : order) {
            Edge e = all.get(i);
            int a = root(parent, e.from());
            int b = root(parent, e.to());
            if (a != b) {
                parent[a] = b;
                tree.set(i);
            } else if (!e.countable()) {
                throw new UncountableCycleException(i);
            }
        }
        int[] counted = IntStream.range(0, all.size()).filter(i -> !tree.get(i)).toArray();
        return new EdgeCounters(nodes, all, counted);
    }

    /**
     * A plan with the counted edges given (as read back from a counter map).
     *
     * @param nodes the number of nodes
     * @param edges the edges
     * @param counted the indices of the counted edges, ascending: counter {@code k} counts edge
     *     {@code counted[k]}
     * @return the plan
     * @throws IllegalArgumentException if the uncounted edges hold a cycle (their counts would not
     *     follow from the counters)
     */
    public static EdgeCounters of(int nodes, List<Edge> edges, int[] counted) {
        List<Edge> all = List.copyOf(edges);
        BitSet isCounted = new BitSet(all.size());
        for (int c : counted) {
            isCounted.set(c);
        }
        int[] parent = IntStream.range(0, nodes).toArray();
        for (int i = 0; i < all.size(); i++) {
            if (!isCounted.get(i)) {
                int a = root(parent, all.get(i).from());
                int b = root(parent, all.get(i).to());
                if (a == b) {
                    throw new IllegalArgumentException("the uncounted edges hold a cycle through edge " + i);
                }
                parent[a] = b;
            }
        }
        return new EdgeCounters(nodes, all, isCounted.stream().toArray());
    }

    private static int root(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    /** {@return the number of nodes} */
    public int nodes() {
        return nodes;
    }

    /** {@return the edges, as given} */
    public List<Edge> edges() {
        return edges;
    }

    /** {@return the indices of the counted edges, ascending: counter k counts edge {@code counted()[k]}} */
    public int[] counted() {
        return counted.clone();
    }

    /**
     * Every edge's count from the counters, by flow conservation: a node of the spanning forest with
     * one edge of unknown count left determines it (what enters it minus what leaves it by the
     * known edges), and the forest is peeled leaf by leaf.
     *
     * @param counters the counters' values, in the order of {@link #counted()}
     * @return each edge's count, in the order of {@link #edges()}
     * @throws IllegalArgumentException if the counters contradict conservation (a count would be negative)
     */
    public long[] edgeCounts(long[] counters) {
        return peel(counters, true);
    }

    /**
     * Every edge's count from the counters as {@link #edgeCounts} has it, in the integers: no
     * check that counts are not negative or that the counters conserve flow. Counts are linear in
     * the counters, so this gives how an edge's count depends on one counter (set it to 1, the
     * others to 0).
     *
     * @param counters the counters' values, in the order of {@link #counted()}
     * @return each edge's count, in the order of {@link #edges()}
     */
    public long[] flows(long[] counters) {
        return peel(counters, false);
    }

    private long[] peel(long[] counters, boolean checked) {
        if (counters.length != counted.length) {
            throw new IllegalArgumentException(counted.length + " counters expected, got " + counters.length);
        }
        long[] count = new long[edges.size()];
        boolean[] known = new boolean[edges.size()];
        long[] balance = new long[nodes]; // in minus out over the known edges
        for (int k = 0; k < counted.length; k++) {
            int i = counted[k];
            count[i] = counters[k];
            known[i] = true;
            balance[edges.get(i).to()] += counters[k];
            balance[edges.get(i).from()] -= counters[k];
        }
        List<List<Integer>> unknownAt = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            unknownAt.add(new ArrayList<>());
        }
        int[] degree = new int[nodes];
        for (int i = 0; i < edges.size(); i++) {
            if (!known[i]) {
                unknownAt.get(edges.get(i).from()).add(i);
                unknownAt.get(edges.get(i).to()).add(i);
                degree[edges.get(i).from()]++;
                degree[edges.get(i).to()]++;
            }
        }
        int[] leaves = new int[nodes];
        int top = 0;
        for (int n = 0; n < nodes; n++) {
            if (degree[n] == 1) {
                leaves[top++] = n;
            }
        }
        while (top > 0) {
            int n = leaves[--top];
            if (degree[n] != 1) {
                continue;
            }
            int i = unknownAt.get(n).stream().filter(x -> !known[x]).findFirst().orElseThrow();
            Edge e = edges.get(i);
            long c = e.to() == n ? -balance[n] : balance[n];
            if (checked && c < 0) {
                throw new IllegalArgumentException("the counters contradict flow conservation at node " + n);
            }
            count[i] = c;
            known[i] = true;
            balance[e.to()] += c;
            balance[e.from()] -= c;
            for (int end : new int[] {e.from(), e.to()}) {
                if (--degree[end] == 1) {
                    leaves[top++] = end;
                }
            }
        }
        for (int n = 0; n < nodes && checked; n++) {
            if (balance[n] != 0) {
                throw new IllegalArgumentException("the counters contradict flow conservation at node " + n);
            }
        }
        return count;
    }
}
