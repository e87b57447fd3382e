package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `splice bat dump` and `splice bat translate` on a BOLT output built here. */
class BatCommandTest {
    @TempDir
    static Path dir;
    static Path bolted;

    @BeforeAll
    static void bolt() {
        bolted = dir.resolve("entries.bolt");
        Tools.run("llvm-bolt-22", TestPrograms.rv64("bat_entries.relocs").toString(), "-o", bolted.toString(),
                "--enable-bat", "--reorder-blocks=reverse").checked("llvm-bolt-22");
    }

    private static CliRun splice(String... args) {
        return CliRun.of(args);
    }

    @Test
    void dumpPrintsFunctionsEntriesAndEntryPoints() throws Exception {
        CliRun r = splice("bat", "dump", bolted.toString());
        assertEquals(Main.OK, r.status(), r.err());
        assertTrue(r.out().contains("function accumulate at 0x"), r.out());
        assertTrue(r.out().contains(" branch") && r.out().contains(" block ") && r.out().contains("secondary entry points (input offsets): 0x2"), r.out());
        CliRun json = splice("bat", "dump", "--json", bolted.toString());
        assertEquals(Main.OK, json.status(), json.err());
        JsonNode tree = new ObjectMapper().readTree(json.out());
        assertEquals(tree.get("functions").size(), tree.get("hotFunctions").asInt());
        JsonNode accumulate = null;
        for (JsonNode f : tree.get("functions")) {
            if ("accumulate".equals(f.get("name").asText())) {
                accumulate = f;
            }
        }
        assertTrue(accumulate != null, json.out());
        assertEquals(2, accumulate.get("secondaryEntryPoints").get(0).asInt());
        assertTrue(accumulate.get("entries").size() > 3);
    }

    @Test
    void dumpOfAnUnboltedBinaryIsBadInput() {
        CliRun r = splice("bat", "dump", TestPrograms.rv64("bat_entries.relocs").toString());
        assertEquals(Main.BAD_INPUT, r.status());
        assertTrue(r.err().contains("no .note.bolt_bat section"), r.err());
    }

    @Test
    void translateWritesWhatPerf2boltWrites() throws Exception {
        Path pa = dir.resolve("p.pa");
        String accumulate = Tools.run("llvm-nm-22", bolted.toString()).checked("llvm-nm").stdout().lines()
                .filter(l -> l.endsWith(" accumulate")).findFirst().orElseThrow().split(" ")[0];
        long base = Long.parseLong(accumulate, 16);
        // In the BOLTed accumulate: beqz at +0x10 taken to +0xa, the trace +0xe..+0x10, a sample at +4.
        Files.writeString(pa, String.format("B %x %x 10 1%nF %x %x 5%nS %x 3%n", base + 0x10, base + 0xa, base + 0xe,
                base + 0x10, base + 4));
        Path out = dir.resolve("p.fdata");
        CliRun r = splice("bat", "translate", "--pa", pa.toString(), bolted.toString(), "-o", out.toString());
        assertEquals(Main.OK, r.status(), r.err());
        Path theirs = dir.resolve("p.perf2bolt.fdata");
        Tools.run("perf2bolt-22", "-p", pa.toString(), "--pa", "-o", theirs.toString(), bolted.toString()).checked("perf2bolt-22");
        assertEquals(Files.readAllLines(theirs).stream().sorted().toList(), Files.readAllLines(out).stream().sorted().toList());
        assertTrue(Files.readAllLines(out).stream().anyMatch(l -> l.startsWith("1 accumulate ")), "a profile with branches: " + Files.readString(out));
        // perf2bolt's own spelling and order (-p FILE --pa BINARY, -w YAML) give the same profile.
        Path same = dir.resolve("p.same.fdata");
        Path yaml = dir.resolve("p.yaml");
        Path theirYaml = dir.resolve("p.perf2bolt.yaml");
        r = splice("bat", "translate", "-p", pa.toString(), "--pa", bolted.toString(), "-o", same.toString(), "-w", yaml.toString());
        assertEquals(Main.OK, r.status(), r.err());
        assertEquals(Files.readString(out), Files.readString(same));
        CliRun yamlOnly = splice("bat", "translate", "--pa", pa.toString(), bolted.toString(), "--format", "yaml", "-o", theirYaml.toString());
        assertEquals(Main.OK, yamlOnly.status(), yamlOnly.err());
        assertEquals(Files.readString(theirYaml), Files.readString(yaml));
    }

    @Test
    void anEmptyProfileIsAWarningAndAnErrorUnlessAllowed() throws Exception {
        Path empty = dir.resolve("empty.pa");
        Files.writeString(empty, "");
        Path out = dir.resolve("empty.fdata");
        CliRun r = splice("bat", "translate", "--pa", empty.toString(), bolted.toString(), "-o", out.toString());
        assertEquals(Main.BAD_INPUT, r.status());
        assertTrue(r.err().contains("empty profile"), r.err());
        r = splice("bat", "translate", "--pa", empty.toString(), bolted.toString(), "-o", out.toString(), "--allow-empty");
        assertEquals(Main.OK, r.status(), r.err());
        assertTrue(r.err().contains("empty profile"), r.err());
    }

    @Test
    void malformedLinesAreReportedWithLineAndColumnOrSkipped() throws Exception {
        Path pa = dir.resolve("bad.pa");
        Files.writeString(pa, "B 400000 400008 1 0\nB 4000zz 400008 1 0\nQ 1 2\n");
        Path out = dir.resolve("bad.fdata");
        CliRun r = splice("bat", "translate", "--pa", pa.toString(), bolted.toString(), "-o", out.toString());
        assertEquals(Main.BAD_INPUT, r.status());
        assertTrue(r.err().contains("bad.pa:2:7: bad hexadecimal digit 'z' in branch source"), r.err());
        assertTrue(Files.notExists(out), "no output after a failure");
        CliRun skipped = splice("bat", "translate", "--pa", pa.toString(), bolted.toString(), "-o", out.toString(), "--skip-bad-lines");
        assertEquals(Main.OK, skipped.status(), skipped.err());
        assertTrue(skipped.err().contains("skipped 2 malformed lines; the first: " + pa + ":2:7:"), skipped.err());
        assertTrue(Files.readString(out).startsWith("boltedcollection\n"));
    }

    /** Large inputs report progress on stderr (every 2^20 lines) and a summary; the result is as perf2bolt's. */
    @Test
    void largeInputsReportProgressOnStderr() throws Exception {
        String accumulate = Tools.run("llvm-nm-22", bolted.toString()).checked("llvm-nm").stdout().lines()
                .filter(l -> l.endsWith(" accumulate")).findFirst().orElseThrow().split(" ")[0];
        long base = Long.parseLong(accumulate, 16);
        Path pa = dir.resolve("large.pa");
        int lines = (1 << 20) + 1000;
        try (var w = Files.newBufferedWriter(pa)) {
            for (int i = 0; i < lines; i++) {
                // Two real branches of the BOLTed accumulate (j at +0x18 to +0xe, beqz at +0x10 to +0xa).
                w.write(String.format("B %x %x 1 %d%n", base + 0x18 - 8 * (i % 2), base + 0xe - 4 * (i % 2), i % 2));
            }
        }
        Path out = dir.resolve("large.fdata");
        CliRun r = splice("bat", "translate", "--pa", pa.toString(), bolted.toString(), "-o", out.toString());
        assertEquals(Main.OK, r.status(), r.err());
        assertTrue(r.err().matches("(?s).*splice: read [0-9,]+ lines \\([0-9.]+ s\\).*"), r.err());
        assertTrue(r.err().contains(String.format("splice: %,d lines", lines)), r.err());
        Path theirs = dir.resolve("large.perf2bolt.fdata");
        Tools.run("perf2bolt-22", "-p", pa.toString(), "--pa", "-o", theirs.toString(), bolted.toString()).checked("perf2bolt-22");
        assertEquals(Files.readAllLines(theirs).stream().sorted().toList(), Files.readAllLines(out).stream().sorted().toList());
        assertTrue(Files.readAllLines(out).stream().anyMatch(l -> l.startsWith("1 accumulate ")), "a profile with branches: " + Files.readString(out));
    }

    @Test
    void translateNeedsExactlyOneInput() {
        assertEquals(Main.USAGE, splice("bat", "translate", bolted.toString(), "-o", dir.resolve("x").toString()).status());
        assertEquals(Main.USAGE, splice("bat", "translate", "--pa", "a", "--perf-script", "b", bolted.toString(), "-o", "x").status());
        assertEquals(Main.USAGE, splice("bat", "translate", "--pa", "a", bolted.toString(), "-o", "x", "--format", "xml").status());
        assertEquals(Main.USAGE, splice("bat", "translate", "-p", "a", bolted.toString(), "-o", "x").status()); // perf.data
        assertEquals(Main.USAGE, splice("bat", "translate", "--pa", "a", bolted.toString()).status()); // no -o, no -w
        assertTrue(List.of(Main.OK).contains(splice("bat", "--help").status()));
    }
}
