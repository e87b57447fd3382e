package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.Profiles;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.PluginFixtures;
import dev.splice.weigh.QemuRunner;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code profile record}'s output against BOLT's own tools: perf2bolt-22 aggregates the recorded
 * pre-aggregated records into the same fdata; llvm-bolt-22 optimizes with it; and a recording on
 * the BOLTed binary, translated through its BAT, is the original's profile as llvm-bolt-22 reads it.
 */
class ProfileRecordBoltTest {
    /**
     * glibc start-up code that walks the program header table or the loaded object's segments:
     * BOLT's output has one program header more (its new PT_LOAD), so these loops run once more
     * there, and memcpy copies the longer table. The programs really differ here; nothing else may.
     */
    private static final Set<String> WALK_PROGRAM_HEADERS = Set.of("_dl_non_dynamic_init", "_dlfo_process_initial/1",
            "_dlfo_sort_mappings.part.0/1", "_dl_find_object_from_map/1", "memcpy");

    private static ProfileRecorder.Result record(Path binary, Path output, ProfileRecorder.Format format, Path input,
                                                 Path dir) {
        PluginFixtures.pluginLibrary(); // Profiles.record finds the same one, under the repository root
        QemuRunner.Streams streams = new QemuRunner.Streams(Redirect.from(new File("/dev/null")),
                Redirect.to(dir.resolve(binary.getFileName() + ".out").toFile()), Redirect.INHERIT);
        return Profiles.record(binary, List.of(), streams, output, format, input);
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loops.relocs", "exceptions.relocs"})
    void perf2boltAggregatesTheRecordedTraceIntoTheSameFdata(String program, @TempDir Path dir) throws IOException {
        Path binary = TestPrograms.rv64(program);
        Path fdata = dir.resolve("splice.fdata");
        Path pa = dir.resolve("splice.pa");
        ProfileRecorder.Result r = record(binary, fdata, ProfileRecorder.Format.FDATA, null, dir);
        record(binary, pa, ProfileRecorder.Format.PRE_AGGREGATED, null, dir);
        assertEquals(Tools.run(QemuRunner.QEMU, binary.toString()).exitCode(), r.exitCode(), "the program's exit status");
        List<String> records = lines(pa);
        assertTrue(records.stream().allMatch(l -> l.matches("B [0-9a-f]+ [0-9a-f]+ [1-9][0-9]* 0|F [0-9a-f]+ [0-9a-f]+ [1-9][0-9]*")),
                "only B and F records");
        Path theirs = dir.resolve("perf2bolt.fdata");
        Tools.run(List.of("perf2bolt-22", binary.toString(), "-p", pa.toString(), "--pa", "-o", theirs.toString()), null, 300)
                .checked("perf2bolt-22");
        List<String> ours = lines(fdata);
        assertTrue(ours.size() > 500, "a real profile: " + ours.size() + " lines");
        assertEquals(new TreeSet<>(lines(theirs)), new TreeSet<>(ours));
        assertEquals(lines(theirs).size(), ours.size());
    }

    private static final Pattern TAKEN = Pattern.compile("(\\d+) : taken branches");
    private static final Pattern PROFILED = Pattern.compile("(\\d+) out of (\\d+) functions in the binary \\(.*\\) have non-empty execution profile");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loops.relocs", "exceptions.relocs"})
    void llvmBoltOptimizesWithTheProfileWithoutStaleFunctions(String program, @TempDir Path dir) throws IOException {
        Path binary = TestPrograms.rv64(program);
        Path fdata = dir.resolve("p.fdata");
        record(binary, fdata, ProfileRecorder.Format.FDATA, null, dir);
        Path bolted = dir.resolve("p.bolt");
        Tools.Result r = Tools.run(List.of("llvm-bolt-22", binary.toString(), "--data", fdata.toString(),
                "--reorder-blocks=ext-tsp", "--reorder-functions=cdsort", "--dyno-stats", "--enable-bat", "-o",
                bolted.toString()), null, 300).checked("llvm-bolt-22");
        String log = r.stdout() + r.stderr();
        assertFalse(log.contains("stale"), "stale functions:\n" + log);
        assertFalse(log.contains("invalid"), "invalid profile:\n" + log);
        Matcher profiled = PROFILED.matcher(log);
        assertTrue(profiled.find() && Integer.parseInt(profiled.group(1)) >= 80, "too few profiled functions:\n" + log);
        Matcher taken = TAKEN.matcher(log);
        assertTrue(taken.find(), log);
        long before = Long.parseLong(taken.group(1));
        assertTrue(taken.find(), log);
        long after = Long.parseLong(taken.group(1));
        assertTrue(after < before, "taken branches " + before + " -> " + after);
        if (program.startsWith("loops")) {
            // BOLT 22's RISC-V output of exceptions dies with SIGSEGV even without a profile (docs/patch.md).
            Tools.Result original = Tools.run(QemuRunner.QEMU, binary.toString());
            Tools.Result optimized = Tools.run(QemuRunner.QEMU, bolted.toString());
            assertEquals(original.stdout(), optimized.stdout());
            assertEquals(original.exitCode(), optimized.exitCode());
        }
    }

    @Test
    void recordingTheBoltedBinaryAndTranslatingGivesTheOriginalsProfile(@TempDir Path dir) throws IOException {
        Path input = TestPrograms.rv64("loops.relocs");
        Path fdata = dir.resolve("input.fdata");
        record(input, fdata, ProfileRecorder.Format.FDATA, null, dir);
        Path boltedFile = dir.resolve("loops.bolt");
        Tools.run(List.of("llvm-bolt-22", input.toString(), "--data", fdata.toString(), "--reorder-blocks=ext-tsp",
                "--reorder-functions=cdsort", "--enable-bat", "-o", boltedFile.toString()), null, 300).checked("llvm-bolt-22");
        // The same path length for both: the C library's start-up reads argv[0].
        Path original = copy(input, dir.resolve("a/prog"));
        Path bolted = copy(boltedFile, dir.resolve("b/prog"));
        Path originalProfile = dir.resolve("a.fdata");
        Path translated = dir.resolve("b.fdata");
        record(original, originalProfile, ProfileRecorder.Format.FDATA, null, dir);
        record(bolted, translated, ProfileRecorder.Format.FDATA, input, dir);
        assertTrue(lines(translated).get(0).equals("boltedcollection"), "translated through BAT");

        // Compare as llvm-bolt-22 reads both onto the input's CFG: its YAML profile, per function.
        Map<String, String> expected = boltProfile(input, originalProfile, dir);
        Map<String, String> actual = boltProfile(input, translated, dir);
        List<String> differing = new ArrayList<>();
        for (String name : new TreeSet<>(expected.keySet())) {
            if (!expected.get(name).equals(actual.get(name))) {
                differing.add(name);
            }
        }
        for (String name : actual.keySet()) {
            if (!expected.containsKey(name)) {
                differing.add(name);
            }
        }
        assertTrue(expected.size() > 80, "profiled functions: " + expected.size());
        for (String own : List.of("main", "hot_loop", "classify", "fib", "apply_all")) {
            assertTrue(expected.containsKey(own), own + " has no profile");
        }
        assertTrue(WALK_PROGRAM_HEADERS.containsAll(differing), "functions whose profiles differ: " + differing);
    }

    private static Path copy(Path from, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        Files.copy(from, to);
        assertTrue(to.toFile().setExecutable(true));
        return to;
    }

    /** The profile llvm-bolt-22 reads from {@code fdata} onto {@code binary}, as its YAML, per function name. */
    private static Map<String, String> boltProfile(Path binary, Path fdata, Path dir) throws IOException {
        Path yaml = dir.resolve(fdata.getFileName() + ".yaml");
        Tools.Result r = Tools.run(List.of("llvm-bolt-22", binary.toString(), "--data", fdata.toString(), "-w", yaml.toString(),
                "-o", dir.resolve(fdata.getFileName() + ".out").toString()), null, 300).checked("llvm-bolt-22 -w");
        assertFalse((r.stdout() + r.stderr()).contains("stale"), r.stdout());
        Map<String, String> functions = new TreeMap<>();
        String name = null;
        StringBuilder body = new StringBuilder();
        for (String line : Files.readAllLines(yaml)) {
            if (line.startsWith("  - name:")) {
                if (name != null) {
                    functions.put(name, body.toString());
                }
                name = line.substring("  - name:".length()).trim().replace("'", "");
                body.setLength(0);
            } else if (name != null) {
                body.append(line).append('\n');
            }
        }
        if (name != null) {
            functions.put(name, body.toString());
        }
        return functions;
    }
}
