package dev.splice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.profile.EdgeMap;
import dev.splice.profile.EdgeProfile;
import dev.splice.testing.EdgeTruth;
import dev.splice.testing.ExecTrace;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code splice instrument} end to end: the instrumented program runs as the original does (same
 * output, same exit status) under qemu-riscv64 and writes its counters at exit; the counter map
 * and the counters give, for every instrumented function, every edge count that QEMU's exec log
 * of the original shows, exactly; the fdata has one line per edge that ran.
 */
class InstrumentationTest {
    /** Functions of the test programs' own sources, which do not depend on the layout. */
    private static final java.util.Map<String, List<String>> OWN = java.util.Map.of(
            "loops.relocs", List.of("main", "hot_loop", "classify", "fib", "apply_all"),
            "exceptions.relocs", List.of("main", "_Z8validatei", "_Z7processRKSt6vectorIiSaIiEE"),
            "cxx_work.relocs", List.of("main"));

    @TempDir Path dir;

    @Test
    void loopsGivesTheTrueEdgeCounts() throws Exception {
        check("loops.relocs", "60");
    }

    @Test
    void exceptionsGivesTheTrueEdgeCounts() throws Exception {
        check("exceptions.relocs");
    }

    /**
     * Loops entered from a conditional branch keep their counters in registers (cxx_work's main:
     * the std::map descent and the insertion sort's loops, LoopPromotionTest): their counts are
     * the exec log's.
     */
    @Test
    void cxxWorkGivesTheTrueEdgeCounts() throws Exception {
        check("cxx_work.relocs", "600");
    }

    /**
     * Issue 16 §3: an instrumented program executes at most 1.3 times the original's instructions.
     * cxx_work 300000 (std::sort and std::map) was the program that missed it (1.393 in session
     * 11); with promotion across rare calls and taken branches counted at their only target it
     * runs about 1.26 times. Both runs are counted exactly by the QEMU plugin (mode=count).
     */
    @Test
    void cxxWorkRunsAtMostOnePointThreeTimesTheOriginalsInstructions() throws Exception {
        Path in = TestPrograms.rv64("cxx_work.relocs");
        Path out = dir.resolve("cxx_work.inst");
        Instrumentation.instrument(in, out, List.of(), dir.resolve("cxx_work.counters").toString());
        long original = instructions(Files.copy(in, dir.resolve("cxx_work.orig")), "300000");
        long instrumented = instructions(out, "300000");
        assertTrue(original > 40_000_000, "the workload ran: " + original);
        assertTrue(instrumented * 10 <= original * 13, instrumented + " instructions against " + original + " ("
                + String.format("%.3f", (double) instrumented / original) + "x)");
    }

    /** The instructions a run executes, from the QEMU plugin's count mode. */
    private long instructions(Path binary, String... args) throws Exception {
        Path count = dir.resolve(binary.getFileName() + ".count");
        List<String> command = new ArrayList<>(List.of("qemu-riscv64", "-plugin",
                TestPrograms.root().resolve("build/qemu-plugin/libsplice-plugin.so") + ",mode=count,out=" + count,
                binary.toString()));
        command.addAll(List.of(args));
        assertEquals(0, Tools.run(command, null, 600).exitCode());
        return Files.readAllLines(count).stream().filter(l -> l.startsWith("insns ")).mapToLong(l -> Long.parseLong(l.substring(6)))
                .findFirst().orElseThrow();
    }

    /**
     * The two ways to a BOLT profile check each other (issue 16 §5): for the programs' own
     * functions, {@code splice instrument} and {@code splice profile record} give the same branch
     * and fall-through lines with the same counts, and the same direct calls by call site (the
     * callee's name may be another alias of its address). Only calls instrumentation does not count
     * (indirect ones, and a call after another in its block) are in the recorded profile alone.
     */
    @Test
    void instrumentationAndRecordingGiveTheSameEdges() throws Exception {
        for (String program : List.of("loops.relocs", "exceptions.relocs")) {
            Path in = TestPrograms.rv64(program);
            Path out = dir.resolve(program + ".inst");
            Path counters = dir.resolve(program + ".counters");
            Instrumentation.instrument(in, out, List.of(), counters.toString());
            int status = run(out).exitCode();
            Path instrumented = dir.resolve(program + ".inst.fdata");
            Instrumentation.convert(out, counters, instrumented);
            Path recorded = dir.resolve(program + ".rec.fdata");
            Path sameLength = Files.copy(in, dir.resolve(program + ".orig")); // argv[0] as long as the output's
            assertEquals(status, dev.splice.cli.Main.execute("profile", "record", "-q", "-o", recorded.toString(), "--",
                    sameLength.toString()), "profile record ends with the program's status");
            Binary binary = Binary.open(in);
            for (String own : OWN.get(program)) {
                Function f = binary.function(own).orElseThrow();
                java.util.Set<String> a = lines(instrumented, own);
                // Instrumentation also writes the fall-through from a call site to the instruction after
                // it (the return's edge); a branch trace has the return there, so no such line.
                a.removeIf(line -> afterCall(f, line));
                java.util.Set<String> b = lines(recorded, own);
                java.util.Set<String> onlyRecorded = new java.util.TreeSet<>(b);
                onlyRecorded.removeAll(a);
                java.util.Set<String> onlyInstrumented = new java.util.TreeSet<>(a);
                onlyInstrumented.removeAll(b);
                assertEquals(java.util.Set.of(), onlyInstrumented, program + " " + own + ": lines only instrumentation has");
                // Recorded alone: calls instrumentation does not count (indirect ones; a call after another
                // call in its block, which runs only if that one returned): at sites where it wrote no call.
                java.util.Set<String> instrumentedSites = new java.util.HashSet<>();
                a.stream().filter(l -> l.endsWith(" call")).forEach(l -> instrumentedSites.add(l.split(" ")[2]));
                for (String line : onlyRecorded) {
                    assertTrue(line.endsWith(" call") && !instrumentedSites.contains(line.split(" ")[2]), program + " "
                            + own + ": only recorded: " + line);
                }
                assertTrue(a.size() >= 3, program + " " + own + ": " + a);
            }
        }
    }

    /** Whether an fdata line of {@code f} goes from a call instruction to the instruction after it. */
    private static boolean afterCall(Function f, String line) {
        String[] p = line.split(" ");
        if (p.length != 8 || !p[4].equals(f.name())) {
            return false;
        }
        long from = f.address() + Long.parseLong(p[2], 16);
        long to = f.address() + Long.parseLong(p[5], 16);
        return f.instructions().stream().anyMatch(i -> i.address() == from && i.address() + i.size() == to
                && (i.mnemonic().equals("jal") || i.mnemonic().endsWith("jalr")) && !i.text().startsWith("jal zero")
                && !i.text().startsWith("jalr zero"));
    }

    /** The fdata lines from {@code function}, a call written as its site and count only (plus "call"). */
    private static java.util.Set<String> lines(Path fdata, String function) throws java.io.IOException {
        java.util.Set<String> lines = new java.util.TreeSet<>();
        for (String line : Files.readAllLines(fdata)) {
            String[] f = line.split(" ");
            if (f.length != 8 || !f[1].equals(function)) {
                continue;
            }
            boolean call = !f[4].equals(function) && f[5].equals("0");
            lines.add(call ? "1 " + f[1] + " " + f[2] + " " + f[7] + " call" : line);
        }
        return lines;
    }

    private void check(String program, String... args) throws Exception {
        Path in = TestPrograms.rv64(program);
        Path out = dir.resolve(program + ".inst");
        Path counters = dir.resolve(program + ".counters");
        Instrumentation.Summary s = Instrumentation.instrument(in, out, List.of(), counters.toString());
        assertTrue(s.functions() > 500 && s.skipped().size() * 5 < s.functions(), s.functions() + " instrumented, "
                + s.skipped().size() + " left alone");
        Tools.Result original = run(in, args);
        Tools.Result instrumented = run(out, args);
        assertEquals(original.stdout(), instrumented.stdout());
        assertEquals(original.exitCode(), instrumented.exitCode());

        ElfFile outElf = ElfFile.read(out);
        EdgeMap map = EdgeMap.parse(new String(outElf.contents(outElf.section(EdgeMap.SECTION).orElseThrow()),
                StandardCharsets.UTF_8), program);
        long[] raw = EdgeProfile.counters(Files.readAllBytes(counters), map, counters.toString());
        ElfFile inElf = ElfFile.read(in);
        // The original runs from a path as long as the output's: the path is on the stack (AT_EXECFN),
        // and where the stack starts decides the alignment memcpy and its kind see.
        Path sameLength = Files.copy(in, dir.resolve(program + ".orig"));
        ExecTrace trace = ExecTrace.of(sameLength, args);
        int checked = 0;
        int ran = 0;
        List<String> differ = new ArrayList<>();
        List<long[]> all = EdgeProfile.edgeCounts(map, raw);
        for (int k = 0; k < all.size(); k++) {
            EdgeMap.FunctionMap f = map.functions().get(k);
            long[] counts = all.get(k);
            EdgeTruth truth = new EdgeTruth(inElf, f.address(), trace);
            boolean same = true;
            List<String> mismatches = new ArrayList<>();
            for (int i = 0; i < counts.length; i++) {
                EdgeMap.Edge e = f.edges().get(i);
                boolean fromCall = f.calls().stream().anyMatch(c -> c.offset() == e.fromOffset());
                Long expected = truth.count(e.kind(), e.fromOffset(), e.toOffset(), e.to() < e.from(), fromCall);
                if (e.slot() >= 0) {
                    same &= expected != null && expected == raw[e.slot()];
                }
                if (expected != null && expected != counts[i]) {
                    mismatches.add(e + ": " + expected + " in the log, " + counts[i] + " from the counters");
                }
                if (expected != null) {
                    checked++;
                    ran += expected > 0 ? 1 : 0;
                }
            }
            if (same) {
                assertEquals(List.of(), mismatches, program + " " + f.name());
            } else {
                differ.add(f.name());
            }
        }
        // A few C-library functions behave differently in the output, whose layout differs: they read
        // the program headers (_dl_non_dynamic_init), sort .eh_frame's FDEs (frame_downheap and its
        // callers), or see other addresses. Their counters differ from the original's log; the program's
        // own functions must not be among them.
        System.out.printf("%s: counters differ from the original's log in %s%n", program, differ);
        for (String own : OWN.get(program)) {
            assertTrue(map.functions().stream().anyMatch(f -> f.name().equals(own)), own + " is instrumented");
            assertTrue(!differ.contains(own), own + " counts as the original runs");
        }
        assertTrue(differ.size() * 50 <= map.functions().size(), "few functions differ: " + differ);
        Path fdata = dir.resolve(program + ".fdata");
        Instrumentation.Converted c = Instrumentation.convert(out, counters, fdata);
        assertEquals(c.branchLines(), Files.readAllLines(fdata).size());
        System.out.printf("%s: %d functions, %d counters, %d edge counts checked (%d ran), %d fdata lines%n", program,
                s.functions(), s.counters(), checked, ran, c.branchLines());
        assertTrue(ran > 500, "many edges ran");
        boltAcceptsTheProfile(in, fdata, original, args);
    }

    /** llvm-bolt-22 reads the profile: no stale function, fewer taken branches after, the same output. */
    private void boltAcceptsTheProfile(Path in, Path fdata, Tools.Result original, String... args) {
        Path bolted = dir.resolve(in.getFileName() + ".bolt");
        Tools.Result bolt = Tools.run(List.of("llvm-bolt-22", in.toString(), "--data", fdata.toString(),
                "--reorder-blocks=ext-tsp", "--reorder-functions=cdsort", "--dyno-stats", "--enable-bat", "-o",
                bolted.toString()), null, 600).checked("llvm-bolt-22");
        String log = bolt.stdout() + bolt.stderr();
        assertTrue(!log.contains("stale"), log);
        assertTrue(log.contains("have non-empty execution profile"), log);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) : taken branches").matcher(log);
        assertTrue(m.find(), log);
        long before = Long.parseLong(m.group(1));
        assertTrue(m.find(), log);
        long after = Long.parseLong(m.group(1));
        assertTrue(after < before, "taken branches " + before + " -> " + after);
        Tools.Result run = run(bolted, args);
        if (!original.stdout().equals(run.stdout()) || original.exitCode() != run.exitCode()) {
            // llvm-bolt-22's RISC-V output of the C++ program crashes with or without a profile
            // (docs/patch.md, benchmark): then the profile is not the cause.
            Path plain = dir.resolve(in.getFileName() + ".bolt-noprofile");
            Tools.run(List.of("llvm-bolt-22", in.toString(), "-o", plain.toString()), null, 600).checked("llvm-bolt-22");
            Tools.Result without = run(plain, args);
            assertTrue(!original.stdout().equals(without.stdout()) || original.exitCode() != without.exitCode(),
                    "the BOLTed program differs only with the profile: " + run.exitCode() + " " + run.stdout());
        }
    }

    private static Tools.Result run(Path binary, String... args) {
        List<String> command = new ArrayList<>(List.of("qemu-riscv64", binary.toString()));
        command.addAll(List.of(args));
        return Tools.run(command, null, 600);
    }
}
