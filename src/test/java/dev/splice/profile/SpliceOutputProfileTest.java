package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.Rewrite;
import dev.splice.testing.BranchTrace;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The BAT of a Splice output is true on real code: an exact branch trace of a run of the output
 * ({@link BranchTrace}), translated by {@code splice bat translate}, is the trace of the same run
 * of the input, translated by the same code, edge for edge and count for count.
 */
class SpliceOutputProfileTest {
    static final String NOP = "addi zero, zero, 0\n";
    static final String PROBE = "addi sp, sp, -16\nsd t0, 8(sp)\nrdcycle t0\nld t0, 8(sp)\naddi sp, sp, 16\n";

    /**
     * Both runs without malloc's fast bins: {@code _dl_find_object_init} allocates 32 bytes per
     * PT_LOAD segment (0x40 bytes for the two of {@code loops.relocs}, 0x60 once patched, 0xa0
     * twice, measured under QEMU), and
     * above the fast-bin limit (0x80) {@code _int_malloc} takes another path; without fast bins
     * every size takes the same one.
     */
    private static final List<String> SAME_MALLOC_PATHS = List.of("-E", "GLIBC_TUNABLES=glibc.malloc.mxfast=0");

    @TempDir Path tmp;

    static Stream<Arguments> outputs() {
        return Stream.of(
                Arguments.of("loops.relocs", "entries", List.of()),
                Arguments.of("loops.relocs", "entries twice", List.of()),
                Arguments.of("loops.relocs", "instructions", List.of("main", "hot_loop", "classify", "fib")),
                Arguments.of("exceptions.relocs", "entries", List.of()),
                Arguments.of("exceptions.relocs", "instructions", List.of("main", "_Z8validatei", "_Z7processRKSt6vectorIiSaIiEE")));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("outputs")
    void theOutputsTranslatedProfileIsTheInputsProfile(String program, String kind, List<String> functions) throws IOException {
        // Input and output run under names of one length: the startup code reads the program's path.
        Path in = java.nio.file.Files.copy(TestPrograms.rv64(program), tmp.resolve("input"));
        ElfFile elf = ElfFile.read(in);
        Path out = tmp.resolve("outpt");
        patch(elf, kind, functions).writeTo(out);
        if (kind.endsWith(" twice")) {
            // Patched again: the output's BAT composes both maps back to the first input.
            Path once = tmp.resolve("once");
            java.nio.file.Files.move(out, once);
            patch(ElfFile.read(once), kind, functions).writeTo(out);
        }
        assertEquals(run(in), run(out), "the output behaves as the input");


        // functions that read the layout run differently on the output: their lines are compared on neither side
        java.util.Set<String> skipped = new java.util.HashSet<>(dev.splice.testing.LayoutDependentFunctions.NAMES);
        if (ElfFile.read(out).section(".splice.eh_frame").isPresent()) {
            skipped.add("strlen"); // .eh_frame grew: the unwinder reads the augmentation of one more CIE
        }
        Edges blocks = new Edges(RewrittenBinary.of(elf), skipped);
        String outputProfile = BranchTrace.record(out, SAME_MALLOC_PATHS);
        String translated = translate(out, outputProfile);
        Map<String, long[]> expected = blocks.of(translate(in, BranchTrace.record(in, SAME_MALLOC_PATHS)));
        Map<String, long[]> actual = blocks.of(translated);
        assertTrue(expected.size() > 100, "" + expected.size());
        assertSameEdges(expected, actual, program + ", " + kind);

        // llvm-bolt-22 applies all of it to the input: no function is stale.
        Path fdata = tmp.resolve("outpt.fdata");
        java.nio.file.Files.writeString(fdata, translated);
        SpliceVersusPerf2boltTest.Applied applied = SpliceVersusPerf2boltTest.applyToInput(in, fdata);
        assertTrue(applied.profiled() > 50 && applied.stale() == 0, applied.log());

        // perf2bolt-22 reads the output and translates the same profile to the same lines, except
        // that it counts each jump of a trampoline to the copy as a call of the function from its entry.
        java.util.Set<String> perf2bolt = Perf2boltAgreementTest.perf2bolt(out, outputProfile, program + "-" + kind);
        java.util.Set<String> splice = Perf2boltAgreementTest.lines(translated);
        java.util.TreeSet<String> missing = new java.util.TreeSet<>(splice);
        missing.removeAll(perf2bolt);
        java.util.TreeSet<String> extra = new java.util.TreeSet<>(perf2bolt);
        extra.removeAll(splice);
        assertEquals(java.util.Set.of(), missing, "lines perf2bolt-22 does not write");
        for (String line : extra) {
            String[] f = line.split(" ");
            assertTrue(f[1].equals(f[4]) && f[2].equals("0") && f[5].equals("0") && f[6].equals("0"),
                    "only perf2bolt-22 writes " + line);
        }
    }

    /** {@code elf} with a nop at every function entry, or a probe before every instruction of {@code functions}. */
    static Rewrite.Result patch(ElfFile elf, String kind, List<String> functions) {
        Rewrite rewrite = Rewrite.of(elf);
        if (kind.startsWith("entries")) {
            rewrite.insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED);
        } else {
            for (String name : functions) {
                Function f = elf.function(name).orElseThrow(() -> new AssertionError(elf.name() + " has no " + name));
                for (long a : rewrite.insertionPoints(f)) {
                    rewrite.insert(new Insertion(a, PROBE, BranchTarget.INSERTED));
                }
            }
        }
        return rewrite.run();
    }

    /**
     * The edges of a translated profile between blocks of the input: a line's source offset inside
     * its function becomes the start of its block in perf2bolt's CFG of the input (a fall-through
     * translated through a BAT starts at the block's first instruction, as BOLT writes it; one
     * from the input's CFG at its last), and a local function's name loses its file component
     * (BOLT prefers {@code name/file/N} where tables exist, {@code name/N} elsewhere); counts and
     * mispredictions of lines that become equal are summed.
     */
    record Edges(RewrittenBinary input, java.util.Set<String> skipped) {
        Map<String, long[]> of(String fdata) {
            Map<String, Integer> byName = new HashMap<>();
            for (int i = 0; i < input.functions().size(); i++) {
                byName.putIfAbsent(input.functions().get(i).name(), i);
            }
            Map<String, long[]> out = new TreeMap<>();
            for (String line : fdata.split("\n")) {
                String[] f = line.split(" ");
                if (f.length != 8) {
                    continue; // the header
                }
                if (skipped.contains(f[1].split("/")[0])) {
                    continue;
                }
                String from = plain(f[1]);
                String to = plain(f[4]);
                long offset = Long.parseLong(f[2], 16);
                Integer index = byName.get(from);
                if (from.equals(to) && index != null) {
                    ControlFlowGraph cfg = input.cfg(index, new int[0]);
                    if (cfg != null) {
                        int[] starts = cfg.blockStarts();
                        int b = Arrays.binarySearch(starts, (int) offset);
                        offset = starts[b >= 0 ? b : -b - 2];
                    }
                }
                String key = f[0] + " " + from + " " + Long.toHexString(offset) + " " + f[3] + " " + to + " " + f[5];
                long[] sum = out.computeIfAbsent(key, k -> new long[2]);
                sum[0] += Long.parseLong(f[6]);
                sum[1] += Long.parseLong(f[7]);
            }
            return out;
        }

        private static String plain(String name) {
            String[] parts = name.split("/");
            return parts.length == 3 ? parts[0] + "/" + parts[2] : name;
        }
    }

    /** Equal maps, or a failure that lists (the first of) the edges only one side has or that differ. */
    static void assertSameEdges(Map<String, long[]> expected, Map<String, long[]> actual, String what) {
        StringBuilder diff = new StringBuilder();
        java.util.TreeSet<String> functions = new java.util.TreeSet<>();
        int differences = 0;
        TreeMap<String, long[]> all = new TreeMap<>(expected);
        actual.forEach(all::putIfAbsent);
        for (String key : all.keySet()) {
            long[] e = expected.get(key);
            long[] a = actual.get(key);
            if (e == null || a == null || !Arrays.equals(e, a)) {
                functions.add(key.split(" ")[1]);
                if (differences++ < 40) {
                    diff.append("\n  ").append(key).append(": input ").append(e == null ? "-" : Arrays.toString(e))
                            .append(", output ").append(a == null ? "-" : Arrays.toString(a));
                }
            }
        }
        assertTrue(differences == 0, what + ": " + differences + " of " + all.size() + " edges differ, from " + functions + diff);
    }

    static String translate(Path binary, String profile) {
        try {
            StringWriter w = new StringWriter();
            ProfileTranslation.translate(ElfFile.read(binary), new StringReader(profile),
                    ProfileTranslation.InputFormat.PRE_AGGREGATED, ProfileTranslation.Options.DEFAULTS)
                    .write(w, ProfileTranslation.OutputFormat.FDATA);
            return w.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String run(Path binary) {
        Tools.Result r = Tools.run(List.of("qemu-riscv64", binary.toString()), null, 300);
        return r.exitCode() + "\n" + r.stdout() + r.stderr();
    }
}
