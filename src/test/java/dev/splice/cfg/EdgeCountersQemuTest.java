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
