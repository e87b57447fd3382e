package dev.splice;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Block;
import dev.splice.cfg.ControlFlowGraph.Kind;
import dev.splice.cfg.FunctionEdges;
import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.FunctionEdges.Probe;
import dev.splice.cfg.Liveness;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counter promotion in loops (docs/instrument.md): the counters of a loop are kept in registers
 * while it runs, each incremented by one {@code addi}, set to zero on the way in and added to their
 * slots on every way out. A loop is promoted only where that is exact: a natural loop whose head
 * is entered from outside by exactly one block that goes nowhere else (the zeroing goes before its
 * last instruction), whose blocks have no ecall, return, tail call, trap, indirect jump, landing
 * pad or label data refers to, and no call but direct calls of leaf functions (nothing leaves it
 * but its exit edges and those calls, which come back with the promoted registers untouched,
 * nothing enters it but its head), and whose exit blocks are entered from the loop only (the flush
 * goes at their start, where every arrival is an exit) or entered from the loop by fall-through
 * only (the flush takes policy ORIGINAL there, so that branches and jumps from outside skip it);
 * where that cannot be, the loop is tried with a flush on each exit edge instead (before a branch
 * taken out of it, guarded by the branch's own condition; before a jump out; at the exit's start,
 * policy ORIGINAL, for the fall-through), which runs on no way in from outside.
 * Each promoted counter takes a caller-saved register that is dead where the zeroing goes and that
 * no instruction of the loop (or of the rest of the entering block) writes: the program never reads
 * it before it writes it again, so the loop may keep a count there. Where the loop calls leaves,
 * the register is also one that no instruction of the loop reads, that is dead at every exit, that
 * the leaves neither read nor write, and not t1 (the old entries' jumps write it); the plan names
 * the leaves, whose own counters must then leave it alone.
 */
final class LoopPromotion {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());
    private static final Opcode ECALL = ISA.opcode("ecall");
    /** t1: the jump at a moved function's old entry may write it ({@code auipc t1; jr t1}). */
    private static final int T1 = 6;
    /** What {@code writes} says of a direct call of a function that is no leaf, where promotion crosses calls. */
    private static final int CALL = -2;


    /**
     * The promotions of one function.
     *
     * @param register per promoted counted edge, its register
     * @param zeroing per promoted loop, the offset of the instruction the zeroing goes before, and its registers
     * @param flushes per exit block start, the promoted edges to add to their slots there
     * @param fallThroughFlushes the exit block starts entered by fall-through only where a fall-through counter
     *     is (their flush takes its policy, ORIGINAL)
     * @param reserved per offset inside a promoted loop's reach, the registers other fragments must not touch
     * @param preserved per leaf function a promoted loop calls (its address), the registers its own
     *     fragments must not touch (bit r for xr)
     * @param takenFlushes the flush offsets that are conditional branches of a loop leaving it when
     *     taken: the flush runs there only when the branch will be taken (edge flushes, below)
     */
    record Plan(Map<FlowEdge, Integer> register, Map<Integer, List<Integer>> zeroing, Map<Integer, List<FlowEdge>> flushes,
                java.util.Set<Integer> fallThroughFlushes, Map<Integer, Integer> reserved, Map<Long, Integer> preserved,
                java.util.Set<Integer> takenFlushes) {
        /** The plan of a function with no promoted loop. */
        static final Plan NONE = new Plan(Map.of(), Map.of(), Map.of(), java.util.Set.of(), Map.of(), Map.of(), java.util.Set.of());

        /** {@return the registers reserved at an offset (bit r for xr)} */
        int reservedAt(int offset) {
            return reserved.getOrDefault(offset, 0);
        }
    }

    private LoopPromotion() {}

    /**
     * Chooses the promoted loops of a function, outermost first, each with every counter inside it
     * promoted, or none.
     *
     * @param cfg the network's graph (same blocks)
     * @param net the network, counters chosen
     * @param code the function's section bytes
     * @param base the function's offset in them
     * @param size the function's size in bytes
     * @param live the function's liveness
     * @param labels the offsets data refers to
     * @param candidates the registers a counter may take, in order of preference
     * @param address the function's address
     * @param leaves per call target, the registers the leaf function there reads or writes, its
     *     counters included (bit r for xr), or -1 when it is no leaf whose effect is known
     * @return the plan (possibly empty)
     */
    static Plan plan(ControlFlowGraph cfg, FunctionEdges net, byte[] code, int base, int size, Liveness live, int[] labels,
                     int[] candidates, long address, java.util.function.LongToIntFunction leaves) {
        return plan(cfg, net, code, base, size, live, labels, candidates, address, leaves, at -> true);
    }

    /**
     * As {@link #plan(ControlFlowGraph, FunctionEdges, byte[], int, int, Liveness, int[], int[], long,
     * java.util.function.LongToIntFunction)}, with the offsets where the write-back may insert code
     * (not inside an auipc pair or an lr/sc sequence): a flush on an exit edge goes only there.
     */
    static Plan plan(ControlFlowGraph cfg, FunctionEdges net, byte[] code, int base, int size, Liveness live, int[] labels,
                     int[] candidates, long address, java.util.function.LongToIntFunction leaves,
                     java.util.function.IntPredicate insertable) {
        List<Block> blocks = cfg.blocks();
        int n = blocks.size();
        List<List<Integer>> preds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            preds.add(new ArrayList<>());
        }
        for (Block b : blocks) {
            for (int s : b.successors()) {
                preds.get(s).add(b.index());
            }
        }
        BitSet labelBlocks = new BitSet(n);
        for (int l : labels) {
            labelBlocks.set(cfg.blockIndexAt(l));
        }
        List<BitSet> loops = new ArrayList<>();
        for (int h : cfg.loopHeads()) {
            loops.add(body(h, blocks, preds));
        }
        loops.sort((a, b) -> Integer.compare(b.cardinality(), a.cardinality()));
        Map<FlowEdge, Integer> register = new HashMap<>();
        Map<Integer, List<Integer>> zeroing = new HashMap<>();
        Map<Integer, List<FlowEdge>> flushes = new HashMap<>();
        Map<Integer, Integer> reserved = new HashMap<>();
        Map<Long, Integer> preserved = new HashMap<>();
        java.util.Set<Integer> fallThroughFlushes = new java.util.HashSet<>();
        java.util.Set<Integer> takenFlushes = new java.util.HashSet<>();
        double[] frequency = net.frequencies();
        BitSet taken = new BitSet(n);
        Map<Integer, Probe> policy = new HashMap<>(); // per zeroing and flush point, how it runs (BEFORE: always)
        for (BitSet loop : loops) {
            if (loop.intersects(taken)) {
                continue;
            }
            int head = loop.nextSetBit(0);
            for (int h : cfg.loopHeads()) {
                if (loop.get(h) && preds.get(h).stream().anyMatch(p -> !loop.get(p))) {
                    head = h;
                }
            }
            Promotion p = promotion(head, loop, blocks, preds, labelBlocks, net, frequency, live, candidates,
                    new Code(code, base, size, address, leaves, insertable, false));
            int busy = p == null ? 0 : p.reach.stream().mapToInt(at -> reserved.getOrDefault(at, 0)).reduce(0, (x, y) -> x | y);
            if (p != null && (busy & mask(p)) != 0) {
                // Where it meets other promotions (one's flush where the other's zeroing is), it takes other registers.
                int[] others = java.util.Arrays.stream(candidates).filter(r -> (busy & 1 << r) == 0).toArray();
                p = promotion(head, loop, blocks, preds, labelBlocks, net, frequency, live, others,
                        new Code(code, base, size, address, leaves, insertable, false));
            }
            if (p == null) {
                continue;
            }
            Map<Integer, Probe> points = points(p, blocks, net);
            if ((busy & mask(p)) != 0 || points.entrySet().stream().anyMatch(x -> policy.containsKey(x.getKey())
                    && policy.get(x.getKey()) != x.getValue())) {
                continue; // no registers of its own, or one address would take two policies
            }
            policy.putAll(points);
            taken.or(loop);
            register.putAll(p.register);
            List<Integer> registers = List.copyOf(p.register.values());
            java.util.function.BiFunction<List<Integer>, List<Integer>, List<Integer>> regs = LoopPromotion::concat;
            java.util.function.BiFunction<List<FlowEdge>, List<FlowEdge>, List<FlowEdge>> both = LoopPromotion::concat;
            zeroing.merge(p.zeroAt, registers, regs);
            p.outerZeroing.forEach(z -> zeroing.merge(z, registers, regs));
            for (CallFlush c : p.callFlushes) {
                flushes.merge(c.flushAt(), p.edges, both);
                zeroing.merge(c.zeroAt(), registers, regs);
            }
            for (EdgeFlush x : p.edgeFlushes) {
                flushes.merge(x.at(), p.edges, both);
            }
            for (int exit : p.edgeFlushes.isEmpty() ? p.exits : List.<Integer>of()) {
                flushes.merge(blocks.get(exit).start(), p.edges, both);
            }
            points.forEach((at, where) -> {
                if (where == Probe.AT_FALL_THROUGH) {
                    fallThroughFlushes.add(at);
                } else if (where == Probe.BEFORE_IF_TAKEN) {
                    takenFlushes.add(at);
                }
            });
            int mask = mask(p);
            for (int at : p.reach) {
                reserved.merge(at, mask, (x, y) -> x | y);
            }
            for (long leaf : p.leaves) {
                preserved.merge(leaf, mask, (x, y) -> x | y);
            }
        }
        return new Plan(register, zeroing, flushes, fallThroughFlushes, reserved, preserved, takenFlushes);
    }

    /**
     * A promotion's zeroing and flush points, each with how its fragment runs: BEFORE, INSERTED
     * (every execution; the zeroings, the flushes before calls, at an exit entered from the loop
     * only, before a jump out), AT_FALL_THROUGH (policy ORIGINAL: a shared exit's, an exit's
     * beside a fall-through counter, an exit edge's fall-through), BEFORE_IF_TAKEN (guarded by the
     * branch). Two promotions may share a point where both run it alike, each with its registers.
     */
    private static Map<Integer, Probe> points(Promotion p, List<Block> blocks, FunctionEdges net) {
        Map<Integer, Probe> out = new HashMap<>();
        out.put(p.zeroAt, Probe.BEFORE);
        p.outerZeroing.forEach(z -> out.put(z, Probe.BEFORE));
        for (CallFlush c : p.callFlushes) {
            out.put(c.flushAt(), Probe.BEFORE);
            out.put(c.zeroAt(), Probe.BEFORE);
        }
        for (EdgeFlush x : p.edgeFlushes) {
            out.put(x.at(), x.where());
        }
        for (int exit : p.edgeFlushes.isEmpty() ? p.exits : List.<Integer>of()) {
            int start = blocks.get(exit).start();
            boolean original = p.sharedExits.contains(exit); // entered from the loop by fall-through only: checked
            for (int c : net.counters().counted()) {
                FlowEdge e = net.edges().get(c);
                original |= e.probe() == Probe.AT_FALL_THROUGH && e.probeOffset() == start; // entered by fall-through only
            }
            out.put(start, original ? Probe.AT_FALL_THROUGH : Probe.BEFORE);
        }
        return out;
    }

    private static int mask(Promotion p) {
        return p.register.values().stream().mapToInt(r -> 1 << r).reduce(0, (x, y) -> x | y);
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return List.copyOf(out);
    }

    private record Promotion(Map<FlowEdge, Integer> register, List<FlowEdge> edges, int zeroAt, List<Integer> outerZeroing,
                             List<Integer> exits,
                             List<Integer> reach, List<Integer> sharedExits, java.util.Set<Long> leaves,
                             List<EdgeFlush> edgeFlushes, List<CallFlush> callFlushes) {}

    /**
     * A call of a function that is no leaf inside a promoted loop: the registers are added to their
     * slots before it (INSERTED, before the auipc of a pair) and zeroed after it returns (the next
     * instruction, in the same block), so that whatever the callee does to them is not counted.
     *
     * @param flushAt the offset of the flush
     * @param zeroAt the offset of the instruction after the call
     */
    record CallFlush(int flushAt, int zeroAt) {}

    /**
     * A flush on one exit edge of a loop: at the exit block's start with policy ORIGINAL for the
     * fall-through from the loop ({@link Probe#AT_FALL_THROUGH}), before the exiting branch when it
     * will be taken ({@link Probe#BEFORE_IF_TAKEN}), or before a jump or a branch both of whose ways
     * leave the loop into that block ({@link Probe#BEFORE}).
     */
    record EdgeFlush(int at, Probe where) {}

    /**
     * A function's bytes, where it is, and what the leaves it may call touch.
     *
     * @param code the bytes of its section
     * @param base its offset in them
     * @param size its size
     * @param address its address
     * @param leaves per call target, the registers the leaf there reads or writes, or -1
     */
    private record Code(byte[] code, int base, int size, long address, java.util.function.LongToIntFunction leaves,
                        java.util.function.IntPredicate insertable, boolean acrossCalls) {}

    /**
     * The registers a leaf function reads or writes (bit r for xr; floating-point operands counted
     * as the integer register of the same number), or -1 when it is no leaf whose every way is
     * known: it has a call, an ecall, a trap, a Zcmp {@code cm.*} or an undecodable instruction, a
     * branch or jump out of it, a return through another register than ra, an indirect jump that is
     * not one of its jump tables, or its last instruction may run off its end.
     *
     * @param code the bytes of its section
     * @param base its offset in them
     * @param size its size in bytes
     * @param tableJumps the offsets of its indirect jumps through jump tables (their targets inside it)
     * @return the registers, or -1
     */
    static int leafRegisters(byte[] code, int base, int size, java.util.Set<Integer> tableJumps) {
        int touched = 0;
        ControlFlow lastFlow = ControlFlow.NONE;
        for (int at = 0; at < size; ) {
            int packed = DECODER.decodeAt(code, base + at, base + size);
            Opcode op = DECODER.opcode(packed);
            if (op == null || op == ECALL || op.mnemonic().startsWith("cm.")) {
                return -1;
            }
            int length = Decoder.size(packed);
            int bits = word(code, base + at, length);
            ControlFlow flow = op.controlFlow(bits);
            boolean known = switch (flow) {
                case NONE -> true;
                case BRANCH, JUMP -> at + op.branchOffset(bits) >= 0 && at + op.branchOffset(bits) < size;
                case RETURN -> op.operand(bits, Operand.RS1) == 1;
                case INDIRECT_JUMP -> tableJumps.contains(at);
                default -> false;
            };
            if (!known) {
                return -1;
            }
            for (Operand role : new Operand[] {Operand.RD, Operand.RS1, Operand.RS2, Operand.RS3}) {
                if (op.has(role)) {
                    touched |= 1 << (int) op.operand(bits, role);
                }
            }
            lastFlow = flow;
            at += length;
        }
        return lastFlow == ControlFlow.RETURN || lastFlow == ControlFlow.JUMP || lastFlow == ControlFlow.INDIRECT_JUMP
                ? touched & ~1 : -1;
    }

    /**
     * The natural loop of head {@code h}: the head and every block that reaches one of its latches
     * without passing it. A latch is a predecessor the head dominates: one that no way from an
     * entry reaches without passing the head (a block merely reachable from the head may be the
     * way into it from an enclosing loop).
     */
    private static BitSet body(int h, List<Block> blocks, List<List<Integer>> preds) {
        BitSet outside = new BitSet(blocks.size());
        ArrayDeque<Integer> work = new ArrayDeque<>();
        for (Block b : blocks) {
            if ((b.entryPoint() || b.index() == 0) && b.index() != h) {
                outside.set(b.index());
                work.push(b.index());
            }
        }
        while (!work.isEmpty()) {
            for (int s : blocks.get(work.pop()).successors()) {
                if (s != h && !outside.get(s)) {
                    outside.set(s);
                    work.push(s);
                }
            }
        }
        BitSet body = new BitSet(blocks.size());
        body.set(h);
        for (int p : preds.get(h)) {
            if (!outside.get(p) && !body.get(p)) {
                body.set(p);
                work.push(p);
            }
        }
        while (!work.isEmpty()) {
            for (int p : preds.get(work.pop())) {
                if (!body.get(p)) {
                    body.set(p);
                    work.push(p);
                }
            }
        }
        return body;
    }

    /**
     * A loop's promotion: with flushes at its exits' starts, else (where they meet a fall-through
     * counter or other ways in) on its exit edges; without calls of functions that are no leaf,
     * else across them.
     */
    private static Promotion promotion(int head, BitSet loop, List<Block> blocks, List<List<Integer>> preds, BitSet labels,
                                       FunctionEdges net, double[] frequency, Liveness live, int[] candidates, Code fn) {
        for (boolean acrossCalls : new boolean[] {false, true}) {
            Code c = new Code(fn.code(), fn.base(), fn.size(), fn.address(), fn.leaves(), fn.insertable(), acrossCalls);
            for (boolean onEdges : new boolean[] {false, true}) {
                Promotion p = promotion(head, loop, blocks, preds, labels, net, frequency, c, live, candidates, onEdges);
                if (p != null) {
                    return p;
                }
            }
        }
        return null;
    }

    private static Promotion promotion(int head, BitSet loop, List<Block> blocks, List<List<Integer>> preds, BitSet labels,
                                       FunctionEdges net, double[] modelFrequency, Code fn, Liveness live, int[] candidates,
                                       boolean onEdges) {
        int entering = -1;
        List<Integer> exits = new ArrayList<>();
        byte[] code = fn.code();
        int base = fn.base();
        Span span = new Span(fn);
        List<Integer> reach = span.reach;
        for (int b = loop.nextSetBit(0); b >= 0; b = loop.nextSetBit(b + 1)) {
            Block block = blocks.get(b);
            if (block.entryPoint() || labels.get(b) || block.start() == 0
                    || !(block.kind() == Kind.PLAIN || block.kind() == Kind.CONDITIONAL || block.kind() == Kind.JUMP)) {
                return null;
            }
            for (int p : preds.get(b)) {
                if (!loop.get(p)) {
                    if (b != head || entering >= 0 && entering != p) {
                        return null; // entered elsewhere than at the head, or from two blocks
                    }
                    entering = p;
                }
            }
            for (int s : block.successors()) {
                if (!loop.get(s) && !exits.contains(s)) {
                    exits.add(s);
                }
            }
            for (int at : block.instructions()) {
                if (!span.add(at, true)) {
                    return null;
                }
            }
        }
        if (entering < 0 || exits.isEmpty()) {
            return null;
        }
        Block in = blocks.get(entering);
        if (!(in.kind() == Kind.PLAIN || in.kind() == Kind.JUMP || in.kind() == Kind.CONDITIONAL)) {
            return null;
        }
        int zeroAt = zeroPoint(in, code, base);
        for (int at : in.instructions()) {
            if (at >= zeroAt && !span.add(at, false)) {
                return null;
            }
        }
        List<Integer> shared = new ArrayList<>();
        List<Integer> outerZeroing = new ArrayList<>();
        List<CallFlush> callFlushes = callFlushes(span.calls, loop, head, blocks, fn, net);
        if (callFlushes == null) {
            return null;
        }
        // With the calls rare, the branches from the loop's ways round that call nothing into its
        // other blocks are too (Wu and Larus's call heuristic, taken as far as a LEAVES edge).
        double[] frequency = callFlushes.isEmpty() ? modelFrequency
                : net.frequencies(rareEdges(net, loop, wayRound(loop, head, blocks, callFlushes), blocks));
        double zeroings = outFrequency(net, frequency, entering); // per counter, the zeroing's executions
        List<EdgeFlush> edgeFlushes = onEdges ? edgeFlushes(loop, blocks, exits, code, base, net) : List.of();
        if (edgeFlushes != null && edgeFlushes.stream().anyMatch(x -> !fn.insertable().test(x.at()))) {
            return null; // inside an auipc pair or an lr/sc sequence
        }
        if (onEdges && edgeFlushes == null) {
            return null;
        }
        for (EdgeFlush x : edgeFlushes) {
            if (x.at() == zeroAt) {
                return null; // one policy per address: the zeroing needs every arrival
            }
            if (!reach.contains(x.at())) {
                reach.add(x.at());
            }
        }
        for (int s : onEdges ? List.<Integer>of() : exits) {
            Block exit = blocks.get(s);
            if (exit.entryPoint() || labels.get(s) || exit.start() == 0) {
                return null;
            }
            reach.add(exit.start());
            if (preds.get(s).stream().noneMatch(p -> !loop.get(p))) {
                continue;
            }
            // Entered from outside too: a flush with policy ORIGINAL where the loop falls through
            // into it and nothing there needs every arrival; else the registers are zeroed on the
            // ways in from outside, so that the flush there adds nothing.
            if (fallThroughFromLoopOnly(s, loop, blocks, preds) && !counterAt(net, exit.start(), false)) {
                shared.add(s);
                continue;
            }
            if (counterAt(net, exit.start(), true)) {
                return null; // one policy per address: a fall-through counter there and arrivals from outside
            }
            for (int p : preds.get(s)) {
                if (loop.get(p)) {
                    continue;
                }
                Block outside = blocks.get(p);
                if (!(outside.kind() == Kind.PLAIN || outside.kind() == Kind.JUMP || outside.kind() == Kind.CONDITIONAL)) {
                    return null;
                }
                int z = zeroPoint(outside, code, base);
                if (counterAt(net, z, true)) {
                    return null; // one policy per address
                }
                for (int at : outside.instructions()) {
                    if (at >= z && !span.add(at, true)) {
                        return null;
                    }
                }
                outerZeroing.add(z);
                zeroings += outFrequency(net, frequency, p);
            }
        }
        if (span.calls.size() != callFlushes.size()) {
            return null; // a call in a block entering a shared exit, after its zeroing
        }
        double callRuns = 0; // per counter, the flushes and zeroings around calls
        for (CallFlush c : callFlushes) {
            callRuns += outFrequency(net, frequency, blockAt(blocks, c.flushAt()));
        }
        final double[] byWeight = frequency;
        zeroings += callRuns;
        List<FlowEdge> edges = new ArrayList<>();
        double flushRuns = callRuns + (onEdges ? edgeFlushRuns(net, frequency, edgeFlushes, loop, blocks)
                : flushes(net, frequency, exits, shared, blocks));
        for (int c : net.counters().counted()) {
            FlowEdge e = net.edges().get(c);
            if (onEdges && e.probe() != Probe.NONE && e.probe() != Probe.CALLERS && edgeFlushes.stream().anyMatch(
                    x -> x.at() == e.probeOffset() && (x.where() == Probe.AT_FALL_THROUGH) != (e.probe() == Probe.AT_FALL_THROUGH))) {
                return null; // one policy per address
            }
            if (e.probe() == Probe.AT_FALL_THROUGH && (e.probeOffset() == zeroAt
                    || !onEdges && exits.stream().anyMatch(x -> blocks.get(x).start() == e.probeOffset() && !shared.contains(x)
                            && !fallThroughOnly(x, blocks, preds)))) {
                return null; // one policy per address: the zeroing and these flushes need every arrival
            }
            if (e.probeOffset() >= 0 && reach.contains(e.probeOffset()) && inLoop(e, loop, blocks)
                    && pays(frequency[c], zeroings, flushRuns)) {
                edges.add(e);
            }
        }
        if (edges.isEmpty()) {
            return null;
        }
        int dead = ~live.liveBefore(zeroAt) & ~span.written;
        for (int z : outerZeroing) {
            dead &= ~live.liveBefore(z) & ~span.read;
        }
        if (!span.leaves.isEmpty() || !span.calls.isEmpty()) {
            // Liveness lets a call clobber every caller-saved register; these calls do not, so the
            // program could keep a value across them (GCC's -fipa-ra does): none of it may be read.
            dead &= ~span.read & ~(1 << T1);
            for (int s : exits) {
                dead &= ~live.liveBefore(blocks.get(s).start());
            }
        }
        List<Integer> free = new ArrayList<>();
        for (int r : candidates) {
            if ((dead & 1 << r) != 0) {
                free.add(r);
            }
        }
        if (free.size() < edges.size()) {
            // Too few registers: the most frequent counters take them, the others stay in memory.
            edges.sort((x, y) -> Double.compare(byWeight[net.edges().indexOf(y)], byWeight[net.edges().indexOf(x)]));
            edges.subList(free.size(), edges.size()).clear();
            if (edges.isEmpty()) {
                return null;
            }
        }
        List<Integer> flushPoints = new ArrayList<>();
        edgeFlushes.forEach(x -> flushPoints.add(x.at()));
        callFlushes.forEach(x -> flushPoints.add(x.flushAt()));
        if (!onEdges) {
            exits.forEach(s -> flushPoints.add(blocks.get(s).start()));
        }
        while (!scratchAtEvery(flushPoints, live, free.subList(0, edges.size()), candidates)) {
            if (edges.size() == 1) {
                return null; // no register for the slot's address at a flush
            }
            // The least frequent counter gives its register up.
            edges.sort((x, y) -> Double.compare(byWeight[net.edges().indexOf(y)], byWeight[net.edges().indexOf(x)]));
            edges.remove(edges.size() - 1);
        }
        Map<FlowEdge, Integer> register = new java.util.LinkedHashMap<>();
        for (int k = 0; k < edges.size(); k++) {
            register.put(edges.get(k), free.get(k));
        }
        return new Promotion(register, List.copyOf(edges), zeroAt, outerZeroing, exits, reach, shared, span.leaves,
                List.copyOf(edgeFlushes), callFlushes);
    }

    /** Whether every flush point has a dead register for the slot's address besides the promoted ones. */
    private static boolean scratchAtEvery(List<Integer> points, Liveness live, List<Integer> promoted, int[] candidates) {
        for (int point : points) {
            int scratch = ~live.liveBefore(point);
            for (int r : promoted) {
                scratch &= ~(1 << r);
            }
            final int sc = scratch;
            if (java.util.Arrays.stream(candidates).noneMatch(r -> (sc & 1 << r) != 0)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The flush and zeroing points around a loop's calls of functions that are no leaf, or null
     * where promotion cannot cross them exactly or is not taken to pay: a call outside the loop's
     * blocks (in the entering block, in a block entering a shared exit), a call that ends its block
     * (the return would need a zeroing at the next block's start, which other ways reach too), a
     * flush point inside an auipc pair or an lr/sc sequence or where a fall-through counter is, a
     * counter at the instruction after the call (its increment would run before the zeroing), or a
     * loop with no way round from its head that calls none of them (its calls are not rare).
     */
    private static List<CallFlush> callFlushes(List<Integer> calls, BitSet loop, int head, List<Block> blocks, Code fn,
                                               FunctionEdges net) {
        if (calls.isEmpty()) {
            return List.of();
        }
        List<CallFlush> out = new ArrayList<>();
        for (int at : calls) {
            int b = blockAt(blocks, at);
            List<Integer> insns = blocks.get(b).instructions();
            int k = insns.indexOf(at);
            if (!loop.get(b) || k < 0 || k == insns.size() - 1) {
                return null;
            }
            int flushAt = k > 0 && isAuipc(fn.code(), fn.base(), insns.get(k - 1)) ? insns.get(k - 1) : at;
            int zeroAt = insns.get(k + 1);
            if (!fn.insertable().test(flushAt) || !fn.insertable().test(zeroAt) || counterAt(net, flushAt, true)) {
                return null;
            }
            for (int c : net.counters().counted()) {
                if (net.edges().get(c).probeOffset() == zeroAt) {
                    return null;
                }
            }
            out.add(new CallFlush(flushAt, zeroAt));
        }
        return wayRound(loop, head, blocks, out).isEmpty() ? null : out;
    }

    /**
     * The blocks of a loop on a way round from its head back to it through blocks that call no
     * function that is no leaf (empty when there is none).
     */
    private static BitSet wayRound(BitSet loop, int head, List<Block> blocks, List<CallFlush> calls) {
        BitSet calling = new BitSet(blocks.size());
        calls.forEach(c -> calling.set(blockAt(blocks, c.flushAt())));
        BitSet forward = new BitSet(blocks.size());
        ArrayDeque<Integer> work = new ArrayDeque<>();
        if (!calling.get(head)) {
            forward.set(head);
            work.push(head);
        }
        while (!work.isEmpty()) {
            for (int s : blocks.get(work.pop()).successors()) {
                if (loop.get(s) && !calling.get(s) && !forward.get(s)) {
                    forward.set(s);
                    work.push(s);
                }
            }
        }
        // Backward from the head's predecessors within the forward set.
        BitSet round = new BitSet(blocks.size());
        for (int b = forward.nextSetBit(0); b >= 0; b = forward.nextSetBit(b + 1)) {
            if (blocks.get(b).successors().contains(head)) {
                round.set(b);
                work.push(b);
            }
        }
        while (!work.isEmpty()) {
            int x = work.pop();
            for (int b = forward.nextSetBit(0); b >= 0; b = forward.nextSetBit(b + 1)) {
                if (!round.get(b) && blocks.get(b).successors().contains(x)) {
                    round.set(b);
                    work.push(b);
                }
            }
        }
        return round;
    }

    /** The edges (indices) from a block on the loop's ways round to one of its blocks off them. */
    private static BitSet rareEdges(FunctionEdges net, BitSet loop, BitSet round, List<Block> blocks) {
        BitSet rare = new BitSet(net.edges().size());
        for (int i = 0; i < net.edges().size(); i++) {
            FlowEdge e = net.edges().get(i);
            if (round.get(e.from()) && e.toOffset() >= 0 && e.kind() != EdgeKind.ARRIVAL && e.kind() != EdgeKind.ENTRY) {
                int to = blockAt(blocks, e.toOffset());
                if (loop.get(to) && !round.get(to)) {
                    rare.set(i);
                }
            }
        }
        return rare;
    }

    /**
     * The flushes on every edge from the loop to a block outside it, or null where an exit edge is
     * not one of a fall-through, a direct branch or a direct jump of the block's last two
     * instructions. Each runs exactly when its edge is taken: at the exit's start with policy
     * ORIGINAL for the fall-through (branches and jumps, from the loop or not, land on the original
     * instruction), before a branch that is taken into the exit (the branch's own condition
     * first), before a jump. Nothing runs on the ways into an exit from outside the loop, so these
     * need no zeroing there, and they leave the exits' starts to the arrivals' own policies.
     */
    private static List<EdgeFlush> edgeFlushes(BitSet loop, List<Block> blocks, List<Integer> exits, byte[] code, int base,
                                               FunctionEdges net) {
        List<EdgeFlush> out = new ArrayList<>();
        for (int b = loop.nextSetBit(0); b >= 0; b = loop.nextSetBit(b + 1)) {
            Block block = blocks.get(b);
            List<Integer> insns = block.instructions();
            for (int s : block.successors()) {
                if (loop.get(s)) {
                    continue;
                }
                int start = blocks.get(s).start();
                boolean fallsInto = block.fallThrough() == s;
                boolean found = false;
                for (int k = Math.max(0, insns.size() - 2); k < insns.size(); k++) {
                    int at = insns.get(k);
                    int packed = DECODER.decodeAt(code, base + at, code.length);
                    Opcode op = DECODER.opcode(packed);
                    if (op == null) {
                        return null;
                    }
                    int bits = word(code, base + at, Decoder.size(packed));
                    ControlFlow flow = op.controlFlow(bits);
                    if ((flow == ControlFlow.BRANCH || flow == ControlFlow.JUMP) && at + op.branchOffset(bits) == start) {
                        boolean both = flow == ControlFlow.BRANCH && fallsInto && k == insns.size() - 1;
                        out.add(new EdgeFlush(at, flow == ControlFlow.JUMP || both ? Probe.BEFORE : Probe.BEFORE_IF_TAKEN));
                        found = true;
                        fallsInto &= !both;
                    }
                }
                if (fallsInto) {
                    if (counterAt(net, start, false)) {
                        return null; // one policy per address: an INSERTED counter at the exit's start
                    }
                    out.add(new EdgeFlush(start, Probe.AT_FALL_THROUGH));
                    found = true;
                }
                if (!found) {
                    return null;
                }
            }
        }
        java.util.Set<Integer> at = new java.util.HashSet<>();
        for (EdgeFlush x : out) {
            if (!at.add(x.at())) {
                return null; // two flushes at one place (a branch and a jump to one exit are two places)
            }
        }
        return out;
    }

    /**
     * How often edge flushes run, per the model, in flush-equivalents (3 instructions): every time
     * its edge is taken, and for a conditional one the branch's test (1) every time the branch runs.
     */
    private static double edgeFlushRuns(FunctionEdges net, double[] frequency, List<EdgeFlush> flushes, BitSet loop,
                                         List<Block> blocks) {
        double f = 0;
        for (int i = 0; i < frequency.length; i++) {
            FlowEdge e = net.edges().get(i);
            if (e.toOffset() < 0 || e.kind() == EdgeKind.ARRIVAL || e.kind() == EdgeKind.ENTRY || !loop.get(e.from())
                    || loop.get(blockAt(blocks, e.toOffset()))) {
                continue;
            }
            f += frequency[i];
        }
        for (EdgeFlush x : flushes) {
            if (x.where() == Probe.BEFORE_IF_TAKEN) {
                f += outFrequency(net, frequency, blockAt(blocks, x.at())) / 3;
            }
        }
        return f;
    }

    /**
     * Whether keeping a counter in a register pays, by the placement's frequency model (per entry
     * of the function): it saves 3 instructions per count (an addi for la, li, amoadd.d) and costs
     * its zeroing (1) wherever that runs and its flush (la, amoadd.d: 3) at every way out. An exit
     * edge's counter never pays: it counts at most once per entry of the loop, which pays a
     * zeroing and a flush (the model gives it less than the entries, so it says no too).
     */
    private static boolean pays(double counts, double zeroings, double flushes) {
        return 3 * counts > zeroings + 3 * flushes;
    }

    /** How often a block is left, per the model (the sum of its out-edges' frequencies). */
    private static double outFrequency(FunctionEdges net, double[] frequency, int block) {
        double f = 0;
        for (int i = 0; i < frequency.length; i++) {
            if (net.edges().get(i).from() == block) {
                f += frequency[i];
            }
        }
        return f;
    }

    /**
     * How often the flushes at a loop's exits run, per the model: a flush with policy ORIGINAL
     * (a shared exit) on the fall-through into it, an INSERTED one on every arrival.
     */
    private static double flushes(FunctionEdges net, double[] frequency, List<Integer> exits, List<Integer> shared,
                                  List<Block> blocks) {
        double f = 0;
        for (int i = 0; i < frequency.length; i++) {
            FlowEdge e = net.edges().get(i);
            if (e.kind() == EdgeKind.ARRIVAL || e.kind() == EdgeKind.ENTRY || e.toOffset() < 0) {
                continue;
            }
            for (int s : exits) {
                if (blocks.get(s).start() == e.toOffset() && (!shared.contains(s) || e.kind() == EdgeKind.FALL_THROUGH)) {
                    f += frequency[i];
                }
            }
        }
        return f;
    }

    /**
     * Where a block's zeroing goes: before the first instruction that may leave it, so that every
     * way out passes the zeroing: its last instruction (a branch, a jump, the last of a plain
     * block), before the auipc of a pair that ends it, or before the conditional branch of a
     * "branch; jump" block (a zeroing before the jump would run on the jump's way only).
     */
    static int zeroPoint(Block b, byte[] code, int base) {
        List<Integer> insns = b.instructions();
        int k = insns.size() - 1;
        if (k > 0 && isAuipc(code, base, insns.get(k - 1))) {
            k--;
        }
        if (b.kind() == Kind.JUMP && k > 0 && isConditionalBranch(code, base, insns.get(k - 1))) {
            k--;
        }
        return insns.get(k);
    }

    /** Whether a counter's probe is at an offset: a fall-through one (policy ORIGINAL) or another (INSERTED). */
    private static boolean counterAt(FunctionEdges net, int offset, boolean fallThrough) {
        for (int c : net.counters().counted()) {
            FlowEdge e = net.edges().get(c);
            if (e.probe() != Probe.NONE && e.probeOffset() == offset && (e.probe() == Probe.AT_FALL_THROUGH) == fallThrough) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the only way from the loop into exit block {@code s} is the fall-through from the
     * block before it (in the loop; no branch of it to {@code s}): a flush there with policy
     * ORIGINAL runs on that way only, not on the branches and jumps from outside.
     */
    private static boolean fallThroughFromLoopOnly(int s, BitSet loop, List<Block> blocks, List<List<Integer>> preds) {
        if (s == 0 || !loop.get(s - 1) || preds.get(s).stream().anyMatch(p -> loop.get(p) && p != s - 1)) {
            return false;
        }
        Block before = blocks.get(s - 1);
        return before.fallThrough() == s && !before.taken().contains(s);
    }

    /**
     * Whether the only way into a block is the fall-through from the block before it (no branch or
     * jump to it): a flush there may take policy ORIGINAL, beside a fall-through counter.
     */
    static boolean fallThroughOnly(int s, List<Block> blocks, List<List<Integer>> preds) {
        if (s == 0 || !preds.get(s).equals(List.of(s - 1))) {
            return false;
        }
        Block before = blocks.get(s - 1);
        return before.fallThrough() == s && !before.taken().contains(s);
    }

    /** Whether the edge's probe runs inside the loop: a block of it, or its head's arrival. */
    private static boolean inLoop(FlowEdge e, BitSet loop, List<Block> blocks) {
        return e.probe() != Probe.NONE && loop.get(blockAt(blocks, e.probeOffset()));
    }

    private static int blockAt(List<Block> blocks, int offset) {
        int lo = 0;
        int hi = blocks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (blocks.get(mid).start() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * What the instructions a promoted counter lives across do: the registers they write and read,
     * the leaves they call, and their offsets (the loop, the entering block from the zeroing, the
     * outside blocks entering a shared exit).
     */
    private static final class Span {
        private final Code fn;
        int written;
        int read;
        final java.util.Set<Long> leaves = new java.util.HashSet<>();
        final List<Integer> reach = new ArrayList<>();
        /** The offsets of the calls of functions that are no leaf (promotion across calls only). */
        final List<Integer> calls = new ArrayList<>();

        Span(Code fn) {
            this.fn = fn;
        }

        /** Adds the instruction at {@code at}; false when what it writes is unknown (promotion refused). */
        boolean add(int at, boolean countReads) {
            int w = writes(fn, at, leaves);
            if (w == CALL) {
                calls.add(at);
                w = 1 << 1; // ra: the callee's registers are flushed before it and zeroed after it
            }
            if (w < 0) {
                return false;
            }
            written |= w;
            if (countReads) {
                read |= reads(fn.code(), fn.base(), at);
            }
            reach.add(at);
            return true;
        }
    }

    /**
     * The registers the instruction at {@code at} writes (bit r for xr), or -1 where that is not
     * known or the instruction may leave the loop's sight: a call of anything but a known leaf
     * (whose registers, and ra, a call writes; the leaf is added to {@code leaves}), an ecall,
     * Zcmp, undecodable.
     */
    private static int writes(Code fn, int at, java.util.Set<Long> leaves) {
        byte[] code = fn.code();
        int base = fn.base();
        int size = fn.size();
        int packed = DECODER.decodeAt(code, base + at, code.length);
        Opcode op = DECODER.opcode(packed);
        if (op == null || op == ECALL || op.mnemonic().startsWith("cm.")) {
            return -1;
        }
        int bits = word(code, base + at, Decoder.size(packed));
        ControlFlow flow = op.controlFlow(bits);
        if (flow == ControlFlow.CALL) {
            long target = fn.address() + at + op.branchOffset(bits);
            int leaf = fn.leaves().applyAsInt(target);
            if (leaf < 0) {
                return fn.acrossCalls() && op.operand(bits, Operand.RD) == 1 ? CALL : -1;
            }
            leaves.add(target);
            return leaf | 1 << (int) op.operand(bits, Operand.RD);
        }
        if (flow == ControlFlow.INDIRECT_CALL || flow == ControlFlow.INDIRECT_JUMP || flow == ControlFlow.RETURN) {
            return -1;
        }
        if ((flow == ControlFlow.BRANCH || flow == ControlFlow.JUMP)
                && (at + op.branchOffset(bits) < 0 || at + op.branchOffset(bits) >= size)) {
            return -1; // out of the function: a tail call
        }
        return op.has(Operand.RD) ? 1 << (int) op.operand(bits, Operand.RD) : 0;
    }

    /** The registers the instruction at {@code at} reads (bit r for xr; any source operand counts). */
    private static int reads(byte[] code, int base, int at) {
        int packed = DECODER.decodeAt(code, base + at, code.length);
        Opcode op = DECODER.opcode(packed);
        int bits = word(code, base + at, Decoder.size(packed));
        int read = 0;
        for (Operand role : new Operand[] {Operand.RS1, Operand.RS2, Operand.RS3}) {
            if (op.has(role)) {
                read |= 1 << (int) op.operand(bits, role);
            }
        }
        return read;
    }

    private static boolean isConditionalBranch(byte[] code, int base, int at) {
        int packed = DECODER.decodeAt(code, base + at, code.length);
        Opcode op = DECODER.opcode(packed);
        return op != null && op.controlFlow(word(code, base + at, Decoder.size(packed))) == ControlFlow.BRANCH;
    }

    private static boolean isAuipc(byte[] code, int base, int first) {
        Opcode op = DECODER.opcode(DECODER.decodeAt(code, base + first, code.length));
        return op != null && op.mnemonic().equals("auipc");
    }

    private static int word(byte[] code, int at, int length) {
        int bits = 0;
        for (int i = 0; i < Math.min(length, 4) && at + i < code.length; i++) {
            bits |= (code[at + i] & 0xff) << (8 * i);
        }
        return bits;
    }
}
