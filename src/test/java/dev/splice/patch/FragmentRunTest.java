package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.Decoder;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.PluginFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fragments that do real work, run under qemu-riscv64: counters checked against QEMU's own
 * single-step log of the input, calls out to the program and the runtime, every exit path, the
 * examples, and what is refused.
 */
class FragmentRunTest {
    @TempDir Path tmp;

    private static final String BLOCK_COUNTER = FragmentExamples.read("block-counter.s");

    /** The block starts of {@code f} (the write-back's CFG) where insertion is accepted. */
    private static List<Long> blockStarts(ElfFile elf, Function f) {
        byte[] code = elf.contents(f.section());
        int base = (int) (f.address() - f.section().address());
        ControlFlowGraph cfg = RiscVCfg.of(code, base, (int) f.size(), new int[0]);
        List<Long> accepted = Rewrite.of(elf).insertionPoints(f);
        List<Long> out = new ArrayList<>();
        for (int start : cfg.blockStarts()) {
            long a = f.address() + start;
            if (accepted.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    private static Map<Long, Long> executions(List<Long> pcs) {
        Map<Long, Long> n = new HashMap<>();
        for (long pc : pcs) {
            n.merge(pc, 1L, Long::sum);
        }
        return n;
    }

    @Test
    void aCounterAtEveryBlockOfAFunctionCountsWhatQemuExecutes() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        Map<Long, Long> oracle = executions(PluginFixtures.singleStepPcs(in, "200"));
        for (String name : List.of("classify", "hot_loop")) {
            List<Long> blocks = blockStarts(elf, elf.function(name).orElseThrow());
            assertTrue(blocks.size() >= 3, name + ": " + blocks);
            Rewrite r = Rewrite.of(elf).counterFile(tmp.resolve(name + ".counters").toString());
            blocks.forEach(a -> r.insert(new Insertion(a, BLOCK_COUNTER, "block-counter.s", BranchTarget.INSERTED)));
            Path out = PatchFixtures.write(tmp, name, r.run().bytes());
            PatchFixtures.assertSameRun(in, out, "200");
            long[] counts = FragmentTemplateTest.run(out, tmp.resolve(name + ".counters"), "200");
            assertEquals(blocks.size(), counts.length);
            long total = 0;
            for (int k = 0; k < blocks.size(); k++) {
                assertEquals(oracle.getOrDefault(blocks.get(k), 0L), counts[k], name + " block 0x" + Long.toHexString(blocks.get(k)));
                total += counts[k];
            }
            assertTrue(total > 200, name + ": " + total);
        }
    }

    @Test
    void theCountersAreWrittenOnEveryExitPath() throws Exception {
        Path in = TestPrograms.rv64("fragment_calls.relocs");
        ElfFile elf = ElfFile.read(in);
        Function work = elf.function("work").orElseThrow();
        List<Long> blocks = blockStarts(elf, work);
        Path file = tmp.resolve("exit.counters");
        Rewrite r = Rewrite.of(elf).counterFile(file.toString()).counters(blocks.size() + 3);
        blocks.forEach(a -> r.insert(new Insertion(a, BLOCK_COUNTER, "block-counter.s", BranchTarget.INSERTED)));
        Path out = PatchFixtures.write(tmp, "exits", r.run().bytes());
        for (String mode : List.of("return", "exit", "_exit", "thread")) {
            Map<Long, Long> oracle = executions(PluginFixtures.singleStepPcs(in, mode, "30"));
            PatchFixtures.assertSameRun(in, out, mode, "30");
            long[] counts = FragmentTemplateTest.run(out, file, mode, "30");
            assertEquals(blocks.size() + 3, counts.length, mode + ": --counters gives at least that many slots");
            assertEquals(1, counts[0], mode + ": work's entry");
            for (int k = 0; k < blocks.size(); k++) {
                assertEquals(oracle.getOrDefault(blocks.get(k), 0L), counts[k], mode + " block " + k);
            }
            assertEquals(0, counts[blocks.size()], mode + ": the slots no fragment uses stay zero");
        }
    }

    @Test
    void theEnvironmentOverridesTheCounterFileAndPercentPIsThePid() throws Exception {
        Path in = TestPrograms.rv64("fragment_calls.relocs");
        ElfFile elf = ElfFile.read(in);
        long entry = elf.function("work").orElseThrow().address();
        Path out = PatchFixtures.write(tmp, "env", Rewrite.of(elf).counterFile(tmp.resolve("default").toString())
                .insert(new Insertion(entry, BLOCK_COUNTER, BranchTarget.INSERTED)).run().bytes());
        Path dir = Files.createDirectory(tmp.resolve("by-pid"));
        Tools.run(List.of("env", SpliceRuntime.VARIABLE + "=" + dir + "/run.%p.counters", "qemu-riscv64", out.toString(), "exit", "3"),
                "", 60);
        try (var files = Files.list(dir)) {
            List<Path> written = files.toList();
            assertEquals(1, written.size(), written.toString());
            assertTrue(written.get(0).getFileName().toString().matches("run\\.[1-9][0-9]*\\.counters"), written.toString());
            assertEquals(8, Files.size(written.get(0)));
        }
        assertFalse(Files.exists(tmp.resolve("default")));
    }

    @Test
    void fragmentsCallFunctionsOfTheProgramAndOfTheRuntimeAndReachItsData() throws Exception {
        Path in = TestPrograms.rv64("fragment_calls.relocs");
        ElfFile elf = ElfFile.read(in);
        long entry = elf.function("work").orElseThrow().address();
        String callRecord = "addi sp, sp, -16\nsd ra, 8(sp)\nsd a0, 0(sp)\nli a0, 7\ncall record\n"
                + "li a0, 100\nla t0, record\njalr ra, 0(t0)\nld a0, 0(sp)\nld ra, 8(sp)\naddi sp, sp, 16\n";
        String readTable = FragmentTemplateTest.store("la t1, table\nld t1, 8(t1)");
        Path file = tmp.resolve("calls.counters");
        Path out = PatchFixtures.write(tmp, "calls", Rewrite.of(elf).counterFile(file.toString())
                .insert(new Insertion(entry, callRecord, BranchTarget.INSERTED))
                .insert(new Insertion(entry, FragmentExamples.read("function-entry-counter.s"), BranchTarget.INSERTED))
                .insert(new Insertion(entry, readTable, BranchTarget.INSERTED))
                .insert(new Insertion(entry, FragmentTemplateTest.store("here: auipc t1, %pcrel_hi(table + 16)\n"
                        + "ld t1, %pcrel_lo(here)(t1)"), BranchTarget.INSERTED)).run().bytes());
        Tools.Result r = PatchFixtures.qemu(out, "return", "4");
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("recorded=107 "), r.stdout());
        long[] c = FragmentTemplateTest.run(out, file, "return", "4");
        assertEquals(0, c[0], "the calling fragment uses no counter");
        assertEquals(1, c[1], "function-entry-counter.s through __splice_count");
        assertEquals(20, c[2], "table[1], read by name");
        assertEquals(30, c[3], "table[2], through %pcrel_hi/%pcrel_lo");
    }

    @Test
    void theEdgeCounterCountsTheFallThroughOfABranch() throws Exception {
        Path in = TestPrograms.rv64("fragment_calls.relocs");
        ElfFile elf = ElfFile.read(in);
        Function work = elf.function("work").orElseThrow();
        List<Long> pcs = PluginFixtures.singleStepPcs(in, "return", "40");
        List<Long> points = Rewrite.of(elf).insertionPoints(work);
        Decoder decoder = Input.read(elf).decoder();
        List<long[]> edges = new ArrayList<>(); // {branch, next}
        byte[] code = elf.contents(work.section());
        for (long a : PatchFixtures.boundaries(elf, work)) {
            int at = (int) (a - work.section().address());
            int parcel = (code[at] & 0xff) | (code[at + 1] & 0xff) << 8;
            int size = Decoder.length(parcel);
            int bits = size == 2 ? parcel : dev.splice.base.Le.u32(code, at);
            var op = decoder.decode(bits, size);
            if (op.controlFlow(bits) == dev.splice.isa.ControlFlow.BRANCH && points.contains(a + size)) {
                edges.add(new long[] {a, a + size});
            }
        }
        assertFalse(edges.isEmpty());
        Path file = tmp.resolve("edges.counters");
        Rewrite r = Rewrite.of(elf).counterFile(file.toString());
        edges.forEach(e -> r.insert(new Insertion(e[1], FragmentExamples.read("edge-counter.s"), BranchTarget.ORIGINAL)));
        Path out = PatchFixtures.write(tmp, "edges", r.run().bytes());
        PatchFixtures.assertSameRun(in, out, "return", "40");
        long[] c = FragmentTemplateTest.run(out, file, "return", "40");
        for (int k = 0; k < edges.size(); k++) {
            long expected = 0;
            for (int i = 0; i + 1 < pcs.size(); i++) {
                if (pcs.get(i) == edges.get(k)[0] && pcs.get(i + 1) == edges.get(k)[1]) {
                    expected++;
                }
            }
            assertEquals(expected, c[k], "fall-through of the branch at 0x" + Long.toHexString(edges.get(k)[0]));
        }
    }

    @Test
    void theCycleProbePairAccumulatesPerPoint() throws Exception {
        Path in = TestPrograms.rv64("fragment_calls.relocs");
        ElfFile elf = ElfFile.read(in);
        Function work = elf.function("work").orElseThrow();
        Decoder decoder = Input.read(elf).decoder();
        byte[] code = elf.contents(work.section());
        Path file = tmp.resolve("cycles.counters");
        // begin at the entry, end before every return: both probes on every path through work
        Rewrite r = Rewrite.of(elf).counterFile(file.toString())
                .insert(new Insertion(work.address(), FragmentExamples.read("cycle-probe-begin.s"), BranchTarget.INSERTED));
        int ends = 0;
        for (long a : PatchFixtures.boundaries(elf, work)) {
            int at = (int) (a - work.section().address());
            int parcel = (code[at] & 0xff) | (code[at + 1] & 0xff) << 8;
            int size = Decoder.length(parcel);
            int bits = size == 2 ? parcel : dev.splice.base.Le.u32(code, at);
            if (decoder.decode(bits, size).controlFlow(bits) == dev.splice.isa.ControlFlow.RETURN) {
                r.insert(new Insertion(a, FragmentExamples.read("cycle-probe-end-accumulate.s"), BranchTarget.INSERTED));
                ends++;
            }
        }
        assertTrue(ends > 0);
        Path out = PatchFixtures.write(tmp, "cycles", r.run().bytes());
        PatchFixtures.assertSameRun(in, out, "return", "100");
        long small = sumOfEnds(FragmentTemplateTest.run(out, file, "return", "100"));
        long large = sumOfEnds(FragmentTemplateTest.run(out, file, "return", "3000000"));
        assertTrue(small > 0 && large > 10 * small, small + " vs " + large);
    }

    /** The cycles the end probes accumulated (slot 0 is the begin probe's, unused). */
    private static long sumOfEnds(long[] counters) {
        assertEquals(0, counters[0]);
        long sum = 0;
        for (int k = 1; k < counters.length; k++) {
            sum += counters[k];
        }
        return sum;
    }

    private static void refused(ElfFile elf, String fragment, Reason reason, String... words) {
        long a = elf.function("work").orElseThrow().address();
        PatchException e = assertThrows(PatchException.class, () -> Inserter.insert(elf,
                List.of(new Insertion(a, fragment, "f.s", BranchTarget.INSERTED))), fragment);
        assertEquals(reason, e.reason(), e.getMessage());
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), "'" + w + "' missing from: " + e.getMessage());
        }
    }

    @Test
    void fragmentsThatLeaveOtherwiseThanByACallAreRefused() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("fragment_calls.relocs"));
        refused(elf, "j record\n", Reason.FRAGMENT_LEAVES_ITSELF, "f.s: jal at fragment offset 0 leaves the fragment");
        refused(elf, "tail record\n", Reason.FRAGMENT_LEAVES_ITSELF, "auipc/jalr at fragment offset 0", "a jump out");
        refused(elf, "ret\n", Reason.FRAGMENT_LEAVES_ITSELF, "a return or an indirect jump");
        refused(elf, "jalr ra, 0(t0)\n", Reason.FRAGMENT_LEAVES_ITSELF, "a call through a register");
        refused(elf, "call table\n", Reason.FRAGMENT_LEAVES_ITSELF, "not the entry of a function");
        refused(elf, "call {counter}\n", Reason.FRAGMENT_LEAVES_ITSELF, "not the entry of a function");
        refused(elf, "auipc t0, 0\nnop\n", Reason.FRAGMENT_USES_PC, "may not use the pc");
        refused(elf, "call no_such_symbol\n", Reason.BAD_LISTING, "f.s:1:");
        refused(elf, ".align 3\nnop\n", Reason.BAD_LISTING, "may not align");
    }

    @Test
    void countersNeedAnExitToHook() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("two_threads.relocs"));
        long a = elf.symbol("_start").orElseThrow().value();
        PatchException e = assertThrows(PatchException.class, () -> Rewrite.of(elf)
                .insert(new Insertion(a, BLOCK_COUNTER, BranchTarget.INSERTED)).run());
        assertEquals(Reason.NO_EXIT_HOOK, e.reason());
        assertTrue(e.getMessage().contains("no function '_exit'"), e.getMessage());
    }
}
