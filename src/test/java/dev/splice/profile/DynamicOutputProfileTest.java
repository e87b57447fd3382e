package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.testing.BranchTrace;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The BAT of a PIE and of a shared-library output is true (issue 17, "Tests in make test"): an
 * exact branch trace of the module in a run of the output ({@link BranchTrace#recordModule}: the
 * module's own addresses, code outside it as {@code [unknown]}), translated by Splice, equals the
 * trace of the same run of the input edge for edge and count for count; llvm-bolt-22 applies it
 * to the input with no stale function; and perf2bolt-22 translates the output's trace to the same
 * lines (plus only the trampoline lines of {@link SpliceOutputProfileTest}).
 */
class DynamicOutputProfileTest {
    private static final String SYSROOT = "/usr/riscv64-linux-gnu";

    @TempDir Path tmp;

    static Stream<Arguments> outputs() {
        return Stream.of(
                Arguments.of("pie", "loops", "entries", List.of()),
                Arguments.of("pie", "loops", "instructions", List.of("main", "hot_loop", "classify", "fib")),
                Arguments.of("shared", "libsplice_c.so", "entries", List.of()),
                Arguments.of("shared", "libsplice_c.so", "instructions", List.of("lib_checksum", "lib_classify", "lib_operation")));
    }

    @ParameterizedTest(name = "{0} {1}, {2}")
    @MethodSource("outputs")
    void theOutputsTranslatedProfileIsTheInputsProfile(String kind, String name, String points, List<String> functions)
            throws IOException {
        boolean shared = kind.equals("shared");
        Path original = shared ? TestPrograms.rv64Shared(name) : TestPrograms.rv64Pie(name);
        // Input and output under paths of one length: the start-up code reads argv[0] and the environment.
        Path in = Files.copy(original, Files.createDirectories(tmp.resolve("in0")).resolve(name));
        Path out = Files.createDirectories(tmp.resolve("out")).resolve(name);
        SpliceOutputProfileTest.patch(ElfFile.read(in), points, functions).writeTo(out);

        String inputProfile = trace(in, shared);
        String outputProfile = trace(out, shared);
        String translated = SpliceOutputProfileTest.translate(out, outputProfile);
        SpliceOutputProfileTest.Edges blocks = new SpliceOutputProfileTest.Edges(RewrittenBinary.of(ElfFile.read(in)), Set.of());
        Map<String, long[]> expected = blocks.of(SpliceOutputProfileTest.translate(in, inputProfile));
        assertTrue(expected.size() > 20, expected.size() + " edges");
        SpliceOutputProfileTest.assertSameEdges(expected, blocks.of(translated), kind + " " + name + ", " + points);

        Path fdata = tmp.resolve("out.fdata");
        Files.writeString(fdata, translated);
        SpliceVersusPerf2boltTest.Applied applied = SpliceVersusPerf2boltTest.applyToInput(in, fdata);
        assertTrue(applied.profiled() >= (shared ? 3 : 5) && applied.stale() == 0, applied.log());

        Set<String> perf2bolt = Perf2boltAgreementTest.perf2bolt(out, outputProfile, kind + "-" + name + "-" + points);
        Set<String> splice = Perf2boltAgreementTest.lines(translated);
        TreeSet<String> missing = new TreeSet<>(splice);
        missing.removeAll(perf2bolt);
        assertEquals(Set.of(), missing, "lines perf2bolt-22 does not write");
        TreeSet<String> extra = new TreeSet<>(perf2bolt);
        extra.removeAll(splice);
        for (String line : extra) {
            String[] f = line.split(" ");
            assertTrue(f[1].equals(f[4]) && f[2].equals("0") && f[5].equals("0") && f[6].equals("0"),
                    "only perf2bolt-22 writes " + line);
        }
    }

    /** The module's trace: the PIE run itself, or the library loaded by the unpatched {@code clib_main}. */
    private static String trace(Path module, boolean shared) {
        List<String> options = new ArrayList<>(List.of("-L", SYSROOT));
        if (!shared) {
            return BranchTrace.recordModule(module, options, module);
        }
        options.addAll(List.of("-E", "LD_LIBRARY_PATH=" + module.getParent()));
        return BranchTrace.recordModule(TestPrograms.rv64Shared("clib_main"), options, module);
    }
}
