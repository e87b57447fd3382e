package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import dev.splice.testing.BranchSites;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** perf script input, YAML output, and independence from the number of parallel parts. */
class ProfileFormatsTest {
    /**
     * Random branch stacks over real branch sites, written as `perf script -F ip,brstack` text, and the
     * same stacks as pre-aggregated records by perf2bolt's rule for branch stacks (newest entry: a
     * branch; each older entry: a branch and a fall-through to the source of the next newer one).
     */
    @Test
    void perfScriptTextTranslatesLikeTheEquivalentPreAggregatedProfile() throws IOException {
        BoltOutputs.Output o = BoltOutputs.get("x86_64-exceptions-splitall-reverse-hfsort");
        ElfFile elf = ElfFile.read(o.output());
        BatTables bat = BatTables.read(elf);
        RewrittenBinary rb = RewrittenBinary.of(elf, bat);
        List<BranchSites.Site> sites = new ArrayList<>();
        for (BranchSites.Site s : BranchSites.of(o.output()).sites()) {
            RewrittenBinary.BoltFunction f = rb.functionContaining(s.address());
            if (f != null && bat.isBatFunction(f.address())) {
                sites.add(s);
            }
        }
        Random random = new Random(3);
        StringBuilder script = new StringBuilder();
        StringBuilder pa = new StringBuilder();
        for (int sample = 0; sample < 300; sample++) {
            int depth = 1 + random.nextInt(8);
            script.append(String.format("  %x", sites.get(random.nextInt(sites.size())).target()));
            long newerFrom = -1;
            for (int i = 0; i < depth; i++) {
                BranchSites.Site s = sites.get(random.nextInt(sites.size()));
                boolean mispredicted = random.nextInt(4) == 0;
                script.append(String.format(" 0x%x/0x%x/%s/-/-/%d", s.address(), s.target(), mispredicted ? "M" : "P", random.nextInt(50)));
                if (newerFrom < 0) {
                    pa.append(String.format("B %x %x 1 %d%n", s.address(), s.target(), mispredicted ? 1 : 0));
                } else {
                    pa.append(String.format("B %x %x 1 %d%n", s.address(), s.target(), mispredicted ? 1 : 0));
                    pa.append(String.format("F %x %x 1%n", s.target(), newerFrom));
                }
                newerFrom = s.address();
            }
            script.append('\n');
        }
        Path scriptFile = BoltOutputs.dir().resolve("perf-script.txt");
        Files.writeString(scriptFile, script.toString());
        Path out = BoltOutputs.dir().resolve("perf-script.splice.fdata");
        ProfileTranslation.translate(o.output(), scriptFile, ProfileTranslation.InputFormat.PERF_SCRIPT,
                new ProfileTranslation.Options(false, false, null, null)).write(out, ProfileTranslation.OutputFormat.FDATA);
        var expected = Perf2boltAgreementTest.perf2bolt(o.output(), pa.toString(), "perf-script");
        Perf2boltAgreementTest.assertSame(expected, Perf2boltAgreementTest.lines(Files.readString(out)));
        assertTrue(expected.size() > 50);
    }

    /** The YAML profile equals perf2bolt -w's (function ids aside) and llvm-bolt-22 reads it. */
    @Test
    void yamlProfileMatchesPerf2boltAndLlvmBoltReadsIt() throws IOException {
        for (String id : List.of("rv64-entries-reverse-icf", "x86_64-entries-splitall-reverse-icf")) {
            BoltOutputs.Output o = BoltOutputs.get(id);
            ElfFile elf = ElfFile.read(o.output());
            String pa = Perf2boltAgreementTest.randomProfile(elf, o.output(), 11, 300);
            Path paFile = BoltOutputs.dir().resolve(id + ".yaml.pa");
            Files.writeString(paFile, pa);
            Path theirs = BoltOutputs.dir().resolve(id + ".perf2bolt.yaml");
            Tools.run(List.of("perf2bolt-22", "-p", paFile.toString(), "--pa", "-o", BoltOutputs.dir().resolve(id + ".y.fdata").toString(),
                    "-w", theirs.toString(), o.output().toString()), null, 300).checked("perf2bolt-22 -w");
            Path ours = BoltOutputs.dir().resolve(id + ".splice.yaml");
            ProfileTranslation.translate(o.output(), paFile, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(false, false, null, null)).write(ours, ProfileTranslation.OutputFormat.YAML);
            assertEquals(normalize(Files.readString(theirs)), normalize(Files.readString(ours)), id);
            Tools.Result r = Tools.run(List.of("llvm-bolt-22", o.input().toString(), "-o", BoltOutputs.dir().resolve(id + ".yaml.rebolt").toString(),
                    "--data", ours.toString()), null, 300).checked("llvm-bolt-22 --data " + ours);
            assertTrue(r.stdout().contains("YAML profile reader") && r.stdout().contains("have non-empty execution profile"), r.stdout());
        }
    }

    /** Function ids (numbered differently) and the binary path (as given) aside; functions in name order. */
    private static String normalize(String yaml) {
        String[] parts = yaml.replaceAll("fid: +\\d+", "fid").replaceAll("binary-name: +\\S+", "binary-name").split("\n  - name:");
        List<String> functions = new ArrayList<>(List.of(parts).subList(1, parts.length));
        if (!functions.isEmpty()) {
            int last = functions.size() - 1;
            functions.set(last, functions.get(last).replace("\n...", ""));
        }
        java.util.Collections.sort(functions);
        return parts[0] + "\n" + String.join("\n--\n", functions);
    }

    @Test
    void resultDoesNotDependOnTheNumberOfParallelParts() throws IOException {
        BoltOutputs.Output o = BoltOutputs.get("rv64-loops-reverse-hfsort");
        ElfFile elf = ElfFile.read(o.output());
        Path pa = BoltOutputs.dir().resolve("parts.pa");
        Files.writeString(pa, Perf2boltAgreementTest.randomProfile(elf, o.output(), 5, 5000));
        List<String> outputs = new ArrayList<>();
        for (String threads : List.of("1", "3", "7")) {
            System.setProperty("splice.bat.threads", threads);
            try {
                Path out = BoltOutputs.dir().resolve("parts-" + threads + ".fdata");
                TranslatedProfile r = ProfileTranslation.translate(o.output(), pa, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                        ProfileTranslation.Options.DEFAULTS);
                r.write(out, ProfileTranslation.OutputFormat.FDATA);
                assertEquals(5000, r.lines());
                outputs.add(Files.readString(out));
            } finally {
                System.clearProperty("splice.bat.threads");
            }
        }
        assertEquals(outputs.get(0), outputs.get(1));
        assertEquals(outputs.get(0), outputs.get(2));
    }
}
