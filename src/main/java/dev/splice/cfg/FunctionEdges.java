package dev.splice.cfg;

import dev.splice.cfg.ControlFlowGraph.Block;
import dev.splice.cfg.ControlFlowGraph.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * A function's control-flow graph as a flow network for edge counters ({@link EdgeCounters}): the
 * blocks of its {@link ControlFlowGraph} plus one virtual node ({@link #virtualNode()}) that enters
 * its entry points and that every way out of it enters, so that what enters a node leaves it. Each
 * edge says where a counter for it would go ({@link Probe}) in Splice's insertion model: a
 * fragment runs before an instruction; at a block start with branch-target policy ORIGINAL only
 * fall-through (and a return to the address after a call) runs it, with INSERTED every arrival
 * does. docs/instrument.md has the proof that each probe counts exactly its edge.
 *
 * @param blocks the number of blocks (the virtual node is {@code blocks}; in-nodes of split blocks
 *     follow it)
 * @param edges the edges, in a fixed order (block by block, as {@link #of} lists them)
 * @param calls the call sites, in address order
 * @param counters the counted edges
 * @param address the function's start address (a call there is recursive), -1 where unknown
 */
public record FunctionEdges(int blocks, List<FlowEdge> edges, List<CallSite> calls, EdgeCounters counters, long address) {
    /** What an edge stands for. */
    public enum EdgeKind {
        /** Virtual: the function is entered at an entry block (its start, a landing pad). */
        ENTRY,
        /**
         * Every arrival at a block, from the block's in-node to the block: blocks entered from
         * outside where the entry alone cannot be counted (a landing pad; the function's start when
         * code in the function branches back to it) get an in-node that all their in-edges enter.
         */
        ARRIVAL,
        /** A conditional branch taken to a block of the function. */
        TAKEN,
        /** An unconditional jump to a block of the function. */
        JUMP,
        /** Execution runs from a block's last instruction into the next block (also after a call). */
        FALL_THROUGH,
        /** A conditional branch whose target is the next block: taken and fall-through together. */
        TAKEN_OR_FALL_THROUGH,
        /** An indirect jump, through a table, to a block data refers to (no counter: the tree holds it). */
        TABLE,
        /** Virtual: a return, a tail call, an indirect jump out, a conditional tail call taken. */
        EXIT,
        /**
         * Virtual: control leaves the block without reaching its end: a call that does not return
         * (exit, a throw, longjmp), a trap, or running off the function's end.
         */
        LEAVES
    }

    /** Where a counter for an edge goes. */
    public enum Probe {
        /** Before the instruction at the probe offset, branch-target policy INSERTED: each execution counts. */
        BEFORE,
        /** Before the conditional branch at the probe offset (policy INSERTED), counting only when it is taken. */
        BEFORE_IF_TAKEN,
        /** At the start of the edge's target block with policy ORIGINAL: only fall-through counts. */
        AT_FALL_THROUGH,
        /** The edge cannot carry a counter: it stays in the spanning tree. */
        NONE,
        /**
         * A function's entry counted by its callers: every entry is a direct call whose block the
         * callers' counters give (Instrumentation), so the edge is known without a fragment.
         */
        CALLERS
    }

    /**
     * One edge of the flow network.
     *
     * @param from its source block (or the virtual node)
     * @param to its target block (or the virtual node)
     * @param kind what it stands for
     * @param fromOffset the offset of the instruction it leaves from (a branch, a jump, a block's
     *     last instruction; the exit instruction), -1 for {@link EdgeKind#ENTRY}
     * @param toOffset the offset it goes to (a block start), -1 into the virtual node
     * @param probe where its counter goes
     * @param probeOffset the offset of the instruction the counter's fragment precedes, -1 for none
     */
    public record FlowEdge(int from, int to, EdgeKind kind, int fromOffset, int toOffset, Probe probe, int probeOffset) {}

    /**
     * A call instruction.
     *
     * @param block the block holding it
     * @param offset its offset
     * @param target the absolute address it calls, or -1 for an indirect call
     */
    public record CallSite(int block, int offset, long target) {}

    /**
     * What the CFG does not say about single instructions, from the ISA's decoder.
     *
     * @param kind per byte offset, the kind of the instruction starting there (CALL for calls)
     * @param target per byte offset, the direct target offset of a CONDITIONAL or JUMP there
     * @param callTarget per byte offset, the absolute target address of a direct call there, else -1
     * @param probeAt per byte offset, where a fragment counting the executions of the instruction
     *     there goes (itself, or the start of the pc-relative pair it ends), -1 where no fragment
     *     may go
     * @param insertable per byte offset, whether a fragment may precede the instruction there
     * @param indirectTargets per byte offset, for an indirect jump that may go through a table, the
     *     offsets it may go to (labels data refers to), else null
     * @param mayStop per byte offset, whether the instruction there may not come back although it is
     *     no call (a system call: exit, exit_group, execve)
     */
    public record Instructions(Kind[] kind, int[] target, long[] callTarget, int[] probeAt, boolean[] insertable,
                               int[][] indirectTargets, boolean[] mayStop) {}

    /** {@return the number of nodes: the blocks, the virtual node, the in-nodes} */
    public int nodes() {
        return counters.nodes();
    }

    /**
     * {@return per edge (in the order of {@link #edges()}), how often it runs per entry of the
     * function, as the placement's model estimates it (a loop head 10 times what enters it)}
     */
    public double[] frequencies() {
        return Frequencies.edgeFrequencies(nodes(), edges, recursiveBlocks(calls, address));
    }

    /**
     * {@return per edge, its frequency per entry as {@link #frequencies()} estimates it, with some
     * branches taken to be rare: each of them as likely as a way out through a call that does not
     * return}
     *
     * @param rare the rare edges' indices
     */
    public double[] frequencies(java.util.BitSet rare) {
        return Frequencies.edgeFrequencies(nodes(), edges, recursiveBlocks(calls, address), rare);
    }

    /** The blocks that call the function itself (the frequency model's recursive loops). */
    private static java.util.BitSet recursiveBlocks(List<CallSite> calls, long address) {
        java.util.BitSet recursive = new java.util.BitSet();
        for (CallSite c : address < 0 ? List.<CallSite>of() : calls) {
            if (c.target() == address) {
                recursive.set(c.block());
            }
        }
        return recursive;
    }

    /**
     * The same network with the entry at the start counted by the callers ({@link Probe#CALLERS}):
     * a known edge that costs nothing, so the spanning tree leaves it out and needs one counter
     * fewer where the entry closes a cycle.
     *
     * @return the network, counters chosen again, or this one when it has no entry at the start
     */
    public FunctionEdges withEntryFromCalls() {
        List<FlowEdge> out = new ArrayList<>(edges);
        int entry = entryAtStart();
        if (entry < 0) {
            return this;
        }
        FlowEdge e = out.get(entry);
        out.set(entry, new FlowEdge(e.from(), e.to(), e.kind(), e.fromOffset(), e.toOffset(), Probe.CALLERS, -1));
        long[] weight = Frequencies.estimate(nodes(), out, recursiveBlocks(calls, address));
        List<EdgeCounters.Edge> network = new ArrayList<>(out.size());
        for (int i = 0; i < out.size(); i++) {
            FlowEdge x = out.get(i);
            network.add(new EdgeCounters.Edge(x.from(), x.to(), i == entry ? 0 : weight[i], x.probe() != Probe.NONE));
        }
        return new FunctionEdges(blocks, List.copyOf(out), calls, EdgeCounters.choose(nodes(), network), address);
    }

    /** {@return the index of the entry edge at the function's start (offset 0), or -1} */
    public int entryAtStart() {
        for (int i = 0; i < edges.size(); i++) {
            if (edges.get(i).kind() == EdgeKind.ENTRY && edges.get(i).toOffset() == 0) {
                return i;
            }
        }
        return -1;
    }

    /** {@return the virtual node's number: the number of blocks} */
    public int virtualNode() {
        return blocks;
    }

    /**
     * The flow network of a function, with counters chosen.
     *
     * @param cfg the function's CFG (the write-back's view)
     * @param code its instructions' details
     * @return the network
     * @throws EdgeCounters.UncountableCycleException if edges that cannot carry a counter close a cycle
     */
    public static FunctionEdges of(ControlFlowGraph cfg, Instructions code) {
        return of(cfg, code, -1);
    }

    /**
     * The flow network of a function, with counters chosen, its recursive calls known.
     *
     * @param cfg the function's CFG (the write-back's view)
     * @param code its instructions' details
     * @param address the function's start address: direct calls of it are recursive ({@link Frequencies})
     * @return the network
     * @throws EdgeCounters.UncountableCycleException if edges that cannot carry a counter close a cycle
     */
    public static FunctionEdges of(ControlFlowGraph cfg, Instructions code, long address) {
        List<Block> blocks = cfg.blocks();
        int n = blocks.size();
        int virtual = n;
        List<FlowEdge> edges = new ArrayList<>();
        List<CallSite> calls = new ArrayList<>();
        boolean[] hasPredecessor = new boolean[n];
        for (Block b : blocks) {
            for (int s : b.successors()) {
                hasPredecessor[s] = true;
            }
        }
        boolean[] loopHead = new boolean[n]; // the target of a branch or jump from itself or a later block
        for (Block b : blocks) {
            if (b.kind() == Kind.CONDITIONAL || b.kind() == Kind.JUMP) {
                b.taken().stream().filter(t -> t <= b.index()).forEach(t -> loopHead[t] = true);
            }
        }
        int[] node = new int[n]; // where edges into a block go: the block, or its in-node
        int nodes = n + 1;
        for (Block b : blocks) {
            node[b.index()] = b.index();
            if (b.entryPoint()) {
                boolean countable = code.insertable()[b.start()];
                if (b.index() == 0 && !hasPredecessor[0]) {
                    edges.add(new FlowEdge(virtual, 0, EdgeKind.ENTRY, -1, 0, countable ? Probe.BEFORE : Probe.NONE,
                            countable ? 0 : -1));
                } else {
                    node[b.index()] = nodes++;
                    edges.add(new FlowEdge(virtual, node[b.index()], EdgeKind.ENTRY, -1, b.start(), Probe.NONE, -1));
                    edges.add(new FlowEdge(node[b.index()], b.index(), EdgeKind.ARRIVAL, -1, b.start(),
                            countable ? Probe.BEFORE : Probe.NONE, countable ? b.start() : -1));
                }
            }
        }
        for (Block b : blocks) {
            if (node[b.index()] == b.index() && code.insertable()[b.start()] && loopHead[b.index()]) {
                // A loop head's arrivals as one edge: the tree may then keep its back edge (a
                // self-loop otherwise always carries a counter) and count the arrival instead.
                node[b.index()] = nodes++;
                edges.add(new FlowEdge(node[b.index()], b.index(), EdgeKind.ARRIVAL, -1, b.start(), Probe.BEFORE, b.start()));
            }
        }
        for (Block b : blocks) {
            boolean leaves = false;
            for (int at : b.instructions()) {
                if (code.kind()[at] == Kind.CALL) {
                    calls.add(new CallSite(b.index(), at, code.callTarget()[at]));
                    leaves = true;
                }
                leaves |= code.mayStop()[at];
            }
            int last = b.instructions().get(b.instructions().size() - 1);
            int beforeLast = b.instructions().size() > 1 ? b.instructions().get(b.instructions().size() - 2) : -1;
            switch (b.kind()) {
                case CONDITIONAL -> {
                    int target = blocks.get(cfg.blockIndexAt(code.target()[last])).index();
                    if (target == b.fallThrough()) {
                        edges.add(before(b.index(), target, EdgeKind.TAKEN_OR_FALL_THROUGH, last, blocks, code));
                    } else {
                        edges.add(ifTaken(b.index(), target, last, blocks, code));
                        if (b.fallThrough() >= 0) {
                            edges.add(fallThrough(b, blocks, last, code));
                        }
                    }
                }
                case JUMP -> {
                    int jumpTarget = cfg.blockIndexAt(code.target()[last]);
                    if (beforeLast >= 0 && code.kind()[beforeLast] == Kind.CONDITIONAL) {
                        int branchTarget = cfg.blockIndexAt(code.target()[beforeLast]);
                        if (branchTarget == jumpTarget) {
                            edges.add(before(b.index(), jumpTarget, EdgeKind.JUMP, beforeLast, blocks, code));
                        } else {
                            edges.add(ifTaken(b.index(), branchTarget, beforeLast, blocks, code));
                            edges.add(before(b.index(), jumpTarget, EdgeKind.JUMP, last, blocks, code));
                        }
                    } else {
                        edges.add(before(b.index(), jumpTarget, EdgeKind.JUMP, last, blocks, code));
                    }
                }
                case CONDITIONAL_TAIL_CALL -> {
                    edges.add(ifTaken(b.index(), virtual, last, blocks, code));
                    if (b.fallThrough() >= 0) {
                        edges.add(fallThrough(b, blocks, last, code));
                    } else {
                        leaves = true;
                    }
                }
                case EXIT -> {
                    if (code.indirectTargets()[last] != null) {
                        java.util.TreeSet<Integer> targets = new java.util.TreeSet<>();
                        for (int t : code.indirectTargets()[last]) {
                            targets.add(cfg.blockIndexAt(t));
                        }
                        for (int t : targets) {
                            edges.add(new FlowEdge(b.index(), t, EdgeKind.TABLE, last, blocks.get(t).start(), Probe.NONE, -1));
                        }
                    } else {
                        edges.add(before(b.index(), virtual, EdgeKind.EXIT, last, blocks, code));
                    }
                }
                case PLAIN, CALL -> {
                    if (b.fallThrough() >= 0) {
                        edges.add(fallThrough(b, blocks, last, code));
                    } else {
                        leaves = true;
                    }
                }
                default -> leaves = true; // TRAP; INDIRECT does not occur in the write-back's view
            }
            if (leaves) {
                edges.add(new FlowEdge(b.index(), virtual, EdgeKind.LEAVES, last, -1, Probe.NONE, -1));
            }
        }
        for (int i = 0; i < edges.size(); i++) {
            FlowEdge e = edges.get(i);
            if (e.kind() != EdgeKind.ARRIVAL && e.kind() != EdgeKind.ENTRY && e.to() < n && node[e.to()] != e.to()) {
                edges.set(i, new FlowEdge(e.from(), node[e.to()], e.kind(), e.fromOffset(), e.toOffset(), e.probe(),
                        e.probeOffset()));
            }
        }
        atTargets(edges, blocks, node, code);
        List<Integer> conflicts = conflicts(edges);
        EdgeCounters.UncountableCycleException failure = null;
        java.util.BitSet recursive = recursiveBlocks(calls, address);
        for (java.util.Set<Integer> originalWins : choices(conflicts)) {
            List<FlowEdge> resolved = resolve(edges, originalWins);
            long[] weight = Frequencies.estimate(nodes, resolved, recursive);
            List<EdgeCounters.Edge> network = new ArrayList<>(resolved.size());
            for (int i = 0; i < resolved.size(); i++) {
                FlowEdge e = resolved.get(i);
                network.add(new EdgeCounters.Edge(e.from(), e.to(), weight[i], e.probe() != Probe.NONE));
            }
            try {
                return new FunctionEdges(n, List.copyOf(resolved), List.copyOf(calls), EdgeCounters.choose(nodes, network),
                        address);
            } catch (EdgeCounters.UncountableCycleException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        FlowEdge x = edges.get(failure.edge());
        throw new EdgeProfileException("the " + x.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + " edge at +0x" + Integer.toHexString(Math.max(x.fromOffset(), x.toOffset()))
                + " cannot carry a counter and closes a cycle of edges that cannot either");
    }

    /**
     * Moves the counter of a taken branch into a block that nothing else enters to that block's
     * start (policy INSERTED): there it runs exactly when the branch is taken, 4 instructions per
     * taken branch (1 when promoted) instead of the inverse branch on every execution of the branch
     * as well. The block must have no other in-edge (no fall-through, jump, table or other branch
     * into it), no in-node (not an entry, a landing pad or a loop head), and no indirect jump may
     * name it; every arrival at its first instruction is then the branch's.
     */
    private static void atTargets(List<FlowEdge> edges, List<Block> blocks, int[] node, Instructions code) {
        int[] inEdges = new int[blocks.size()];
        for (FlowEdge e : edges) {
            if (e.kind() != EdgeKind.ARRIVAL && e.kind() != EdgeKind.ENTRY && e.to() < blocks.size()) {
                inEdges[e.to()]++;
            }
        }
        java.util.Set<Integer> named = new java.util.HashSet<>();
        for (int[] targets : code.indirectTargets()) {
            for (int t : targets == null ? new int[0] : targets) {
                named.add(t);
            }
        }
        for (int i = 0; i < edges.size(); i++) {
            FlowEdge e = edges.get(i);
            if (e.kind() != EdgeKind.TAKEN || e.probe() != Probe.BEFORE_IF_TAKEN || e.to() >= blocks.size()) {
                continue;
            }
            Block t = blocks.get(e.to());
            if (inEdges[t.index()] == 1 && node[t.index()] == t.index() && !t.entryPoint() && t.index() != e.from()
                    && code.insertable()[t.start()] && !named.contains(t.start())) {
                edges.set(i, new FlowEdge(e.from(), e.to(), e.kind(), e.fromOffset(), e.toOffset(), Probe.BEFORE, t.start()));
            }
        }
    }

    private static FlowEdge fallThrough(Block b, List<Block> blocks, int last, Instructions code) {
        Block next = blocks.get(b.fallThrough());
        boolean ok = code.insertable()[next.start()];
        return new FlowEdge(b.index(), next.index(), EdgeKind.FALL_THROUGH, last, next.start(),
                ok ? Probe.AT_FALL_THROUGH : Probe.NONE, ok ? next.start() : -1);
    }

    private static FlowEdge before(int from, int to, EdgeKind kind, int at, List<Block> blocks, Instructions code) {
        int probe = code.probeAt()[at];
        int toOffset = to < blocks.size() ? blocks.get(to).start() : -1;
        return new FlowEdge(from, to, kind, at, toOffset, probe >= 0 ? Probe.BEFORE : Probe.NONE, probe);
    }

    private static FlowEdge ifTaken(int from, int to, int at, List<Block> blocks, Instructions code) {
        boolean ok = code.insertable()[at];
        int toOffset = to < blocks.size() ? blocks.get(to).start() : -1;
        return new FlowEdge(from, to, to < blocks.size() ? EdgeKind.TAKEN : EdgeKind.EXIT, at, toOffset,
                ok ? Probe.BEFORE_IF_TAKEN : Probe.NONE, ok ? at : -1);
    }

    /**
     * The block starts where a fall-through probe (policy ORIGINAL) and another probe (policy
     * INSERTED) would both go: one address takes one policy, so only one kind can be counted there.
     */
    private static List<Integer> conflicts(List<FlowEdge> edges) {
        java.util.Set<Integer> inserted = new java.util.HashSet<>();
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        for (FlowEdge e : edges) {
            if (e.probe() == Probe.BEFORE || e.probe() == Probe.BEFORE_IF_TAKEN) {
                inserted.add(e.probeOffset());
            }
        }
        for (FlowEdge e : edges) {
            if (e.probe() == Probe.AT_FALL_THROUGH && inserted.contains(e.probeOffset())) {
                out.add(e.probeOffset());
            }
        }
        return List.copyOf(out);
    }

    /**
     * The ways to settle the conflicts tried, in order (each the set of addresses where the
     * fall-through probe wins): INSERTED everywhere, ORIGINAL everywhere, then each address
     * flipped alone from either.
     */
    private static List<java.util.Set<Integer>> choices(List<Integer> conflicts) {
        List<java.util.Set<Integer>> out = new ArrayList<>();
        out.add(java.util.Set.of());
        if (!conflicts.isEmpty()) {
            out.add(java.util.Set.copyOf(conflicts));
            for (int c : conflicts) {
                out.add(java.util.Set.of(c));
                java.util.Set<Integer> allBut = new java.util.HashSet<>(conflicts);
                allBut.remove(c);
                out.add(allBut);
            }
        }
        return out;
    }

    /** The edges with the losing probe at each conflicting address made uncountable. */
    private static List<FlowEdge> resolve(List<FlowEdge> edges, java.util.Set<Integer> originalWins) {
        List<Integer> conflicts = conflicts(edges);
        List<FlowEdge> out = new ArrayList<>(edges.size());
        for (FlowEdge e : edges) {
            boolean at = e.probe() != Probe.NONE && conflicts.contains(e.probeOffset());
            boolean loses = at && (e.probe() == Probe.AT_FALL_THROUGH) != originalWins.contains(e.probeOffset());
            out.add(loses ? new FlowEdge(e.from(), e.to(), e.kind(), e.fromOffset(), e.toOffset(), Probe.NONE, -1) : e);
        }
        return out;
    }
}
