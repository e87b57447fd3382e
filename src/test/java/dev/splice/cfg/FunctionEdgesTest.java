package dev.splice.cfg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.FunctionEdges.Probe;
import dev.splice.cfg.riscv.RiscVEdges;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The edge-counter networks of every function of the static glibc and libstdc++ test programs:
 * random valid flows on each network come back exactly from its counters, no counter sits on an
 * edge that cannot carry one, each edge's probe is where docs/instrument.md says, and the functions
 * left out are few and left out for a stated reason.
 */
class FunctionEdgesTest {
    @Test
    void everyFunctionOfTheStaticProgramsRecoversRandomFlowsExactly() {
        for (String program : List.of("exceptions.relocs", "loops.relocs")) {
            ElfFile elf = ElfFile.read(TestPrograms.rv64(program));
            RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
            Random random = new Random(42);
            int networks = 0;
            int counters = 0;
            int edgesTotal = 0;
            Map<String, Integer> refusals = new TreeMap<>();
            for (Function f : elf.functions()) {
                if (f.size() <= 0 || f.section() == null || !f.section().isExecutable()) {
                    continue;
                }
                FunctionEdges net;
                try {
                    net = RiscVEdges.of(binary, f, RiscVEdges.notAfterAuipc(elf, f));
                } catch (EdgeProfileException e) {
                    refusals.merge(e.getMessage().replaceAll("^.*?: the (\\S+) edge.*", "$1"), 1, Integer::sum);
                    continue;
                }
                networks++;
                checkProbes(f, net);
                List<EdgeCounters.Edge> edges = net.counters().edges();
                counters += net.counters().counted().length;
                edgesTotal += edges.size();
                for (int round = 0; round < 3; round++) {
                    long[] flow = Circulations.random(net.nodes(), edges, net.virtualNode(), 1 + random.nextInt(10), random);
                    assertArrayEquals(flow, net.counters().edgeCounts(Circulations.countersOf(net.counters(), flow)), f.name());
                }
            }
            int refused = refusals.values().stream().mapToInt(Integer::intValue).sum();
            System.out.printf("%s: %d networks, %d edges, %d counters; refused %d: %s%n", program, networks, edgesTotal,
                    counters, refused, refusals);
            assertTrue(networks > 800, program + " has many functions");
            assertTrue(refused * 20 < networks, "at most 5 % refused: " + refusals);
            assertTrue(counters < edgesTotal, "fewer counters than edges");
        }
    }

    private static void checkProbes(Function f, FunctionEdges net) {
        List<FlowEdge> edges = net.edges();
        for (int c : net.counters().counted()) {
            assertNotEquals(Probe.NONE, edges.get(c).probe(), f.name() + " counts an edge without a probe");
        }
        List<Integer> original = new ArrayList<>();
        List<Integer> inserted = new ArrayList<>();
        for (int c : net.counters().counted()) {
            FlowEdge e = edges.get(c);
            switch (e.probe()) {
                case AT_FALL_THROUGH -> {
                    assertEquals(EdgeKind.FALL_THROUGH, e.kind());
                    assertEquals(e.toOffset(), e.probeOffset());
                    original.add(e.probeOffset());
                }
                case BEFORE_IF_TAKEN -> {
                    assertEquals(e.fromOffset(), e.probeOffset());
                    assertTrue(e.kind() == EdgeKind.TAKEN || e.kind() == EdgeKind.EXIT);
                    inserted.add(e.probeOffset());
                }
                case BEFORE -> {
                    if (e.kind() == EdgeKind.ENTRY || e.kind() == EdgeKind.ARRIVAL) {
                        assertEquals(e.toOffset(), e.probeOffset(), "arrivals are counted at the block's start");
                    } else if (e.kind() == EdgeKind.TAKEN) {
                        assertEquals(e.toOffset(), e.probeOffset(), "a taken branch into a block nothing else enters: at its start");
                        assertEquals(1, edges.stream().filter(x -> x.to() == e.to()).count(), f.name() + " " + e);
                    } else {
                        assertTrue(e.probeOffset() <= e.fromOffset() && e.probeOffset() >= e.fromOffset() - 4, f.name() + " " + e);
                    }
                    inserted.add(e.probeOffset());
                }
                default -> throw new AssertionError();
            }
            assertTrue(e.kind() != EdgeKind.LEAVES, "a virtual LEAVES edge is never counted");
        }
        for (int at : original) {
            assertTrue(!inserted.contains(at), f.name() + "+" + at + ": one policy per address");
        }
    }
}
