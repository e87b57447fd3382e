package dev.splice.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.cfg.riscv.RiscVEdges;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.testing.ExecTrace;
import dev.splice.testing.TestPrograms;
import java.util.List;
import java.util.Map;
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
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());

    @Test
    void loopsRecoversEveryEdgeOfARealRun() {
        check("loops.relocs", "60");
    }

    @Test
    void exceptionsRecoversEveryEdgeOfARealRun() {
        check("exceptions.relocs");
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
            Code code = new Code(elf, f);
            List<FlowEdge> edges = net.edges();
            int[] countedEdges = net.counters().counted();
            long[] counters = new long[countedEdges.length];
            for (int k = 0; k < counters.length; k++) {
                counters[k] = probe(code, trace, net, edges.get(countedEdges[k]));
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
                Long truth = truth(code, trace, net, edges.get(i));
                if (truth != null) {
                    assertEquals(truth.longValue(), counts[i], program + " " + f.name() + " " + edges.get(i));
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
    private static long probe(Code code, ExecTrace trace, FunctionEdges net, FlowEdge e) {
        long at = code.f.address() + e.probeOffset();
        return switch (e.probe()) {
            case BEFORE -> trace.ran(at);
            case BEFORE_IF_TAKEN -> trace.ran(at) - trace.followed(at, at + code.length(e.probeOffset()));
            case AT_FALL_THROUGH -> fallThroughs(code, trace, net, e);
            case NONE -> throw new AssertionError("a counter on " + e);
        };
    }

    /** Arrivals at the edge's target by running on from the instruction before it, or by a return to it. */
    private static long fallThroughs(Code code, ExecTrace trace, FunctionEdges net, FlowEdge e) {
        long to = code.f.address() + e.toOffset();
        long from = code.f.address() + e.fromOffset();
        boolean afterCall = net.calls().stream().anyMatch(c -> c.offset() == e.fromOffset());
        if (!afterCall) {
            return trace.followed(from, to);
        }
        long n = 0;
        for (Map.Entry<Long, Long> arrival : trace.arrivals(to).entrySet()) {
            if (code.isReturnAt(arrival.getKey())) {
                n += arrival.getValue();
            }
        }
        return n;
    }

    /** The true count of an edge in this run, or null for a virtual edge the log does not show. */
    private static Long truth(Code code, ExecTrace trace, FunctionEdges net, FlowEdge e) {
        long base = code.f.address();
        long from = base + e.fromOffset();
        long to = base + e.toOffset();
        return switch (e.kind()) {
            case TAKEN, TABLE -> trace.followed(from, to);
            case JUMP -> code.flow(e.fromOffset()) == ControlFlow.JUMP ? trace.followed(from, to) : trace.ran(from);
            case FALL_THROUGH -> fallThroughs(code, trace, net, e);
            case TAKEN_OR_FALL_THROUGH -> trace.ran(from);
            case EXIT -> code.flow(e.fromOffset()) == ControlFlow.BRANCH
                    ? trace.ran(from) - trace.followed(from, from + code.length(e.fromOffset())) : trace.ran(from);
            case ARRIVAL -> trace.ran(to);
            case ENTRY -> e.to() < net.blocks() ? trace.ran(to) : null;
            case LEAVES -> null;
        };
    }

    /** The function's bytes, decoded on demand, and the binary's for return instructions elsewhere. */
    private record Code(ElfFile elf, Function f) {
        int length(int offset) {
            byte[] b = elf.contents(f.section());
            int at = (int) (f.address() - f.section().address()) + offset;
            return (b[at] & 3) == 3 ? 4 : 2;
        }

        ControlFlow flow(int offset) {
            byte[] b = elf.contents(f.section());
            int at = (int) (f.address() - f.section().address()) + offset;
            int packed = DECODER.decodeAt(b, at, b.length);
            Opcode op = DECODER.opcode(packed);
            int bits = 0;
            for (int i = 0; i < Decoder.size(packed); i++) {
                bits |= (b[at + i] & 0xff) << (8 * i);
            }
            return op == null ? ControlFlow.NONE : op.controlFlow(bits);
        }

        boolean isReturnAt(long address) {
            Section s = elf.sectionContaining(address).orElse(null);
            return s != null && s.isExecutable() && RiscVCfg.isReturn(elf.contents(s), (int) (address - s.address()));
        }
    }
}
