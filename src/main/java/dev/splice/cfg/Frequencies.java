package dev.splice.cfg;

import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.FunctionEdges.Probe;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * What each edge would cost if it carried a counter, from estimated frequencies (Ball and Larus's
 * placement: the spanning tree takes the dearest edges, counters land on the cheap ones). The
 * estimate propagates a flow from the entry: a depth-first search from the virtual node finds the
 * loops (retreating edges; a loop is the natural loop of its head), a loop head runs 10 times what
 * enters it, and a block's flow is shared among its out-edges in proportion to 10 to the number of
 * loops that hold both ends (an edge staying in a loop is ten times likelier than one leaving it;
 * a {@code LEAVES} edge is rare). The cost is the edge's frequency times a counter's length, plus,
 * for a taken-branch probe, the inverse branch that runs at every execution of the branch.
 *
 * <p>A loop that calls its own function (a recursion unrolled into a loop, as GCC makes of
 * {@code fib(n - 1) + fib(n - 2)}) is taken to run twice per entry, its back edges as likely as its
 * exits: most of its entries are deep in the recursion, near the base case, where it runs once or
 * twice (fib's loop: 1.6 arrivals per entry). Counting its back edge then costs less than counting
 * its head's arrivals.
 */
final class Frequencies {
    /** The increment's length in instructions with two dead registers. */
    private static final double COUNTER = 4;
    /** Loop heads multiply at most to this (deep nests would overflow the weights' scale). */
    private static final double MAX_FREQUENCY = 1e9;
    /** A loop head runs this many times what enters it, and an edge staying in the loop is this much likelier. */
    private static final double LOOP = 10;
    /** The same for a loop that calls its own function: twice per entry, staying as likely as leaving. */
    private static final double RECURSIVE_LOOP = 2;
    private static final double RECURSIVE_STAY = 1;
    /** A rare edge's score beside the others: a {@code LEAVES} edge's. */
    private static final double RARE = 1e-3;

    private Frequencies() {}

    /**
     * The cost of counting each edge, scaled to integers ({@link EdgeCounters.Edge#weight}).
     *
     * @param nodes the network's node count
     * @param edges its edges
     * @param recursive the nodes (blocks) that call the function itself
     * @return per edge, the estimated instructions its counter would execute (times 1000)
     */
    static long[] estimate(int nodes, List<FlowEdge> edges, BitSet recursive) {
        double[] frequency = new double[nodes];
        double[] edgeFrequency = propagate(nodes, edges, recursive, new BitSet(), frequency);
        return scaled(edges, edgeFrequency, frequency);
    }

    /**
     * Each edge's estimated frequency, for one entry of the function at its start.
     *
     * @param nodes the network's node count
     * @param edges its edges
     * @param recursive the nodes (blocks) that call the function itself
     * @return per edge, how often it runs per entry (the model's estimate, not a measurement)
     */
    static double[] edgeFrequencies(int nodes, List<FlowEdge> edges, BitSet recursive) {
        return propagate(nodes, edges, recursive, new BitSet(), new double[nodes]);
    }

    /**
     * As {@link #edgeFrequencies(int, List, BitSet)}, with some edges rare: each scores as a
     * {@code LEAVES} edge does against the others of its node.
     */
    static double[] edgeFrequencies(int nodes, List<FlowEdge> edges, BitSet recursive, BitSet rare) {
        return propagate(nodes, edges, recursive, rare, new double[nodes]);
    }

    /** The model's flow: per edge its frequency, and per node into {@code frequency}. */
    private static double[] propagate(int nodes, List<FlowEdge> edges, BitSet recursive, BitSet rare, double[] frequency) {
        List<List<Integer>> out = new ArrayList<>(nodes);
        List<List<Integer>> in = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            out.add(new ArrayList<>());
            in.add(new ArrayList<>());
        }
        int virtual = -1;
        for (int i = 0; i < edges.size(); i++) {
            FlowEdge e = edges.get(i);
            out.get(e.from()).add(i);
            in.get(e.to()).add(i);
            if (e.kind() == EdgeKind.ENTRY) {
                virtual = e.from();
            }
        }
        double[] edgeFrequency = new double[edges.size()];
        if (virtual < 0) {
            return edgeFrequency;
        }
        int[] order = new int[nodes];
        BitSet retreating = new BitSet(edges.size());
        int count = reversePostorder(virtual, edges, out, order, retreating);
        java.util.Map<Integer, BitSet> byHead = loops(nodes, edges, in, retreating);
        double[] head = new double[nodes]; // per loop head, its multiplier (1 elsewhere)
        java.util.Arrays.fill(head, 1);
        List<BitSet> loops = new ArrayList<>();
        List<Double> stay = new ArrayList<>();
        byHead.forEach((h, body) -> {
            boolean calls = body.intersects(recursive);
            head[h] = calls ? RECURSIVE_LOOP : LOOP;
            loops.add(body);
            stay.add(calls ? RECURSIVE_STAY : LOOP);
        });
        for (int k = 0; k < count; k++) {
            int n = order[k];
            if (n == virtual) {
                distribute(n, 1, out, edges, loops, stay, rare, edgeFrequency);
                continue;
            }
            double f = 0;
            for (int i : in.get(n)) {
                if (!retreating.get(i)) {
                    f += edgeFrequency[i];
                }
            }
            frequency[n] = Math.min(MAX_FREQUENCY, head[n] * f);
            distribute(n, frequency[n], out, edges, loops, stay, rare, edgeFrequency);
        }
        return edgeFrequency;
    }

    /** Shares a node's flow among its out-edges (entries: the start takes it, landing pads a little). */
    private static void distribute(int n, double f, List<List<Integer>> out, List<FlowEdge> edges, List<BitSet> loops,
                                   List<Double> stay, BitSet rare, double[] edgeFrequency) {
        double total = 0;
        double[] score = new double[out.get(n).size()];
        for (int k = 0; k < score.length; k++) {
            FlowEdge e = edges.get(out.get(n).get(k));
            score[k] = score(e, loops, stay) * (rare.get(out.get(n).get(k)) ? RARE : 1);
            total += score[k];
        }
        for (int k = 0; k < score.length; k++) {
            edgeFrequency[out.get(n).get(k)] = total == 0 ? 0 : f * score[k] / total;
        }
    }

    private static double score(FlowEdge e, List<BitSet> loops, List<Double> stay) {
        return switch (e.kind()) {
            case ENTRY -> e.toOffset() == 0 ? 1 : 1e-3;
            case LEAVES -> 1e-3;
            default -> {
                double s = 1;
                for (int l = 0; l < loops.size(); l++) {
                    if (loops.get(l).get(e.from()) && loops.get(l).get(e.to())) {
                        s *= stay.get(l);
                    }
                }
                yield s;
            }
        };
    }

    /** Depth-first from the virtual node: the reverse postorder (returned count), edges to a node on the stack marked. */
    private static int reversePostorder(int root, List<FlowEdge> edges, List<List<Integer>> out, int[] order,
                                        BitSet retreating) {
        int nodes = out.size();
        int[] state = new int[nodes]; // 0 new, 1 on the stack, 2 done
        int[] stack = new int[nodes];
        int[] next = new int[nodes];
        int[] post = new int[nodes];
        int posts = 0;
        int top = 0;
        stack[top++] = root;
        state[root] = 1;
        while (top > 0) {
            int n = stack[top - 1];
            if (next[n] < out.get(n).size()) {
                int i = out.get(n).get(next[n]++);
                int w = edges.get(i).to();
                if (w == root) {
                    continue; // an exit: not a loop
                }
                if (state[w] == 1) {
                    retreating.set(i);
                } else if (state[w] == 0) {
                    state[w] = 1;
                    stack[top++] = w;
                }
            } else {
                state[n] = 2;
                post[posts++] = n;
                top--;
            }
        }
        for (int k = 0; k < posts; k++) {
            order[k] = post[posts - 1 - k];
        }
        return posts;
    }

    /** Per loop head, its natural loop: the head and what reaches a retreating edge's source without passing it. */
    private static java.util.Map<Integer, BitSet> loops(int nodes, List<FlowEdge> edges, List<List<Integer>> in, BitSet retreating) {
        java.util.Map<Integer, BitSet> byHead = new java.util.TreeMap<>();
        retreating.stream().forEach(i -> {
            FlowEdge e = edges.get(i);
            BitSet body = byHead.computeIfAbsent(e.to(), h -> {
                BitSet b = new BitSet(nodes);
                b.set(h);
                return b;
            });
            java.util.ArrayDeque<Integer> work = new java.util.ArrayDeque<>();
            if (!body.get(e.from())) {
                body.set(e.from());
                work.push(e.from());
            }
            while (!work.isEmpty()) {
                for (int j : in.get(work.pop())) {
                    int p = edges.get(j).from();
                    if (!body.get(p) && edges.get(j).kind() != EdgeKind.ENTRY) {
                        body.set(p);
                        work.push(p);
                    }
                }
            }
        });
        return byHead;
    }

    private static long[] scaled(List<FlowEdge> edges, double[] edgeFrequency, double[] frequency) {
        long[] weight = new long[edges.size()];
        for (int i = 0; i < edges.size(); i++) {
            FlowEdge e = edges.get(i);
            double cost = edgeFrequency[i] * COUNTER + (e.probe() == Probe.BEFORE_IF_TAKEN ? frequency[e.from()] : 0);
            weight[i] = Math.round(cost * 1000);
        }
        return weight;
    }
}
