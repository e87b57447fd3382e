package dev.splice.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.riscv.RiscVEdges;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.EdgeTruth;
import dev.splice.testing.ExecTrace;
import dev.splice.testing.TestPrograms;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The flow networks against real runs: QEMU's exec log of a static program gives how often every
 * instruction ran and followed every other, hence the true count of every edge and what each
 * counter's fragment would count (docs/instrument.md: before an instruction with policy INSERTED,
 * every execution; before a branch, when it is taken; at a block start with policy ORIGINAL, the
 * arrivals by fall-through and by return from the call before it). From the counters alone,
 * every observable edge count of every executed function comes back exactly: returns, throws,
 * exit, jump tables, recursion and calls that do not return included.
 */
class EdgeCountersQemuTest {
    @Test
    void loopsRecoversEveryEdgeOfARealRun() {
        check("loops.relocs", "60");
    }

    @Test
    void exceptionsRecoversEveryEdgeOfARealRun() {
        check("exceptions.relocs");
    }

    /**
     * A taken branch into a block that nothing else enters is counted at that block's start
     * (policy INSERTED): 4 instructions per taken branch instead of 4 plus the inverse branch at
     * every execution of the branch. In cxx_work's main, the std::map descent's {@code blt a4, s0}
     * at +0x10a goes to .L214 (+0x1f6), which only it enters; before session 12 the tree kept that
     * edge and counted the back edge from .L214 ({@code bnez} at +0x1f8, a taken probe). The run's
     * exec log says the count at +0x1f6 is the branch's taken count, and the probe is the cheaper.
     */
    @Test
    void aTakenBranchIntoABlockOnlyItEntersIsCountedAtThatBlock() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("cxx_work.relocs"));
        ExecTrace trace = ExecTrace.of(TestPrograms.rv64("cxx_work.relocs"), "600");
        Function main = elf.functions().stream().filter(f -> f.name().equals("main")).findFirst().orElseThrow();
        FunctionEdges net = RiscVEdges.of(RiscVEdges.Binary.of(elf), main, RiscVEdges.notAfterAuipc(elf, main));
        List<FlowEdge> edges = net.edges();
        int descent = java.util.stream.IntStream.range(0, edges.size())
                .filter(i -> edges.get(i).kind() == FunctionEdges.EdgeKind.TAKEN && edges.get(i).fromOffset() == 0x10a)
                .findFirst().orElseThrow();
        FlowEdge e = edges.get(descent);
        assertEquals(0x1f6, e.toOffset());
        assertEquals(FunctionEdges.Probe.BEFORE, e.probe(), e.toString());
        assertEquals(0x1f6, e.probeOffset());
        assertTrue(java.util.Arrays.stream(net.counters().counted()).anyMatch(c -> c == descent), "the edge is counted");
        EdgeTruth truth = new EdgeTruth(elf, main.address(), trace);
        long branch = main.address() + 0x10a;
        long taken = trace.ran(branch) - trace.followed(branch, branch + truth.length(branch));
        assertTrue(taken > 1000, "the descent ran: " + taken);
        assertEquals(taken, probe(truth, net, e), "the block's arrivals are the branch's taken ones");
        assertEquals(taken, truth.count(e.kind(), e.fromOffset(), e.toOffset(), true, false).longValue());
    }

    /**
     * fib's loop (GCC's unrolled {@code fib(n - 1) + fib(n - 2)}) calls fib: most of its entries are
     * near the recursion's base and run it once or twice, so its back edge (taken 4,189 times in
     * fib(20), an increment and an inverse branch) is cheaper to count than its head's arrivals
     * (10,945 increments). The plan counts the back edge, not the arrivals (before recursive loops
     * were told apart it counted the arrivals), and the real run confirms the choice.
     */
    @Test
    void fibsRecursiveLoopCountsItsBackEdgeNotItsHeadsArrivals() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        ExecTrace trace = ExecTrace.of(TestPrograms.rv64("loops.relocs"), "1000");
        Function fib = elf.functions().stream().filter(f -> f.name().equals("fib")).findFirst().orElseThrow();
        // Every entry of fib is a direct call: its callers count it (CallerCountedEntries), as instrument has it.
        FunctionEdges net = RiscVEdges.of(RiscVEdges.Binary.of(elf), fib, RiscVEdges.notAfterAuipc(elf, fib))
                .withEntryFromCalls();
        EdgeTruth truth = new EdgeTruth(elf, fib.address(), trace);
        List<FlowEdge> edges = net.edges();
        int back = java.util.stream.IntStream.range(0, edges.size())
                .filter(i -> edges.get(i).kind() == FunctionEdges.EdgeKind.TAKEN
                        && edges.get(i).toOffset() < edges.get(i).fromOffset())
                .findFirst().orElseThrow();
        int head = edges.get(back).toOffset();
        int arrival = java.util.stream.IntStream.range(0, edges.size())
                .filter(i -> edges.get(i).kind() == FunctionEdges.EdgeKind.ARRIVAL && edges.get(i).toOffset() == head)
                .findFirst().orElseThrow();
        long backCost = 4 * probe(truth, net, edges.get(back)) + trace.ran(fib.address() + edges.get(back).probeOffset());
        long arrivalCost = 4 * probe(truth, net, edges.get(arrival));
        assertTrue(backCost < arrivalCost, "back edge " + backCost + " instructions, arrivals " + arrivalCost);
        List<Integer> counted = java.util.Arrays.stream(net.counters().counted()).boxed().toList();
        assertTrue(counted.contains(back) && !counted.contains(arrival), "fib counts " + counted + ", back edge " + back
                + ", arrivals " + arrival);
    }

    private static void check(String program, String... args) {
        ElfFile elf = ElfFile.read(TestPrograms.rv64(program));
        ExecTrace trace = ExecTrace.of(TestPrograms.rv64(program), args);
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
        int functions = 0;
        long edgesChecked = 0;
        long counted = 0;
        for (Function f : elf.functions()) {
            if (f.size() <= 0 || f.section() == null || !f.section().isExecutable() || !ran(trace, f)) {
                continue;
            }
            FunctionEdges net;
            try {
                net = RiscVEdges.of(binary, f, RiscVEdges.notAfterAuipc(elf, f));
            } catch (EdgeProfileException refused) {
                continue;
            }
            EdgeTruth truth = new EdgeTruth(elf, f.address(), trace);
            List<FlowEdge> edges = net.edges();
            int[] countedEdges = net.counters().counted();
            long[] counters = new long[countedEdges.length];
            for (int k = 0; k < counters.length; k++) {
                counters[k] = probe(truth, net, edges.get(countedEdges[k]));
                counted += counters[k];
            }
            long[] counts;
            try {
                counts = net.counters().edgeCounts(counters);
            } catch (IllegalArgumentException e) {
                fail(f.name() + ": " + e.getMessage());
                return;
            }
            for (int i = 0; i < edges.size(); i++) {
                FlowEdge e = edges.get(i);
                Long expected = truth.count(e.kind(), e.fromOffset(), e.toOffset(), e.to() < net.blocks(), fromCall(net, e));
                if (expected != null) {
                    assertEquals(expected.longValue(), counts[i], program + " " + f.name() + " " + e);
                    edgesChecked++;
                }
            }
            functions++;
        }
        System.out.printf("%s: %d executed functions, %d edge counts checked, counters summed %d%n", program, functions,
                edgesChecked, counted);
        assertTrue(functions > 50, "many functions ran");
    }

    private static boolean ran(ExecTrace trace, Function f) {
        for (long a = f.address(); a < f.endAddress(); a += 2) {
            if (trace.ran(a) > 0) {
                return true;
            }
        }
        return false;
    }

    /** What the counter fragment of an edge counts in this run. */
    private static long probe(EdgeTruth truth, FunctionEdges net, FlowEdge e) {
        long at = truth.function() + e.probeOffset();
        return switch (e.probe()) {
            case BEFORE -> truth.trace().ran(at);
            case BEFORE_IF_TAKEN -> truth.trace().ran(at) - truth.trace().followed(at, at + truth.length(at));
            case AT_FALL_THROUGH -> truth.fallThroughs(truth.function() + e.fromOffset(), at, fromCall(net, e));
            case NONE, CALLERS -> throw new AssertionError("a counter on " + e);
        };
    }

    private static boolean fromCall(FunctionEdges net, FlowEdge e) {
        return net.calls().stream().anyMatch(c -> c.offset() == e.fromOffset());
    }
}
