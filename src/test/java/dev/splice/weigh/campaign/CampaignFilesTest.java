package dev.splice.weigh.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The campaign files' records write the bytes {@code splice weigh measure} has always written, and read them back. */
class CampaignFilesTest {
    @TempDir Path dir;

    /** A plugin-on and a plugin-off row of a real quick campaign. */
    private static final String ON = "{\"run\":\"run-01\",\"context\":\"div.dependency\",\"baseline\":\"nop.baseline\","
            + "\"batch\":65536,\"order\":\"AB\",\"round\":0,\"position\":0.0,\"calls\":64,\"probe_window\":1,"
            + "\"baseline_window\":3,\"probe_ns\":307709,\"baseline_ns\":1852,\"probe_guest_ns\":307950.158,"
            + "\"baseline_guest_ns\":2259.121,\"translations\":0}";
    private static final String OFF = "{\"run\":\"run-01\",\"context\":\"div.dependency\",\"baseline\":\"nop.baseline\","
            + "\"batch\":65536,\"order\":\"AB\",\"round\":0,\"position\":0.0,\"calls\":64,\"probe_window\":1,"
            + "\"baseline_window\":3,\"probe_ns\":null,\"baseline_ns\":null,\"probe_guest_ns\":277783.05,"
            + "\"baseline_guest_ns\":1309.731,\"translations\":null}";

    private static final PluginRecords.Footer FOOTER = new PluginRecords.Footer(240, 0, 0, 0, 0, 0, 1, 2106);

    @Test
    void pairRowsAreWrittenAsMeasureWritesThem() throws IOException {
        PairRow.Windows w = new PairRow.Windows(64, 1, 3);
        PairRow on = new PairRow("run-01", "div.dependency", "nop.baseline", null, 65536, PairRow.Order.AB, 0, 0.0, w,
                307709, 1852, 307950.158, 2259.121, 0);
        PairRow off = new PairRow("run-01", "div.dependency", "nop.baseline", null, 65536, PairRow.Order.AB, 0, 0.0, w,
                Double.NaN, Double.NaN, 277783.05, 1309.731, null);
        assertEquals(ON, PairRows.line(on));
        assertEquals(OFF, PairRows.line(off));
        Path file = dir.resolve("pairs-off.jsonl");
        Files.writeString(file, OFF + "\n\n" + ON + "\n");
        List<PairRow> read = PairRows.read(file, true, false, new ArrayList<>());
        assertEquals(List.of(off, on), read);
        assertEquals(OFF + "\n" + ON + "\n", PairRows.lines(read));
    }

    @Test
    void wholeThreadTimesAreIntegersGuestTimesStayNumbers() {
        PairRow r = new PairRow("r", "c", "b", "k", 4096, PairRow.Order.BA, 2, 0.5, null, 4396.0, 4096.25, 1234.0,
                Double.NaN, 3);
        assertEquals("{\"run\":\"r\",\"context\":\"c\",\"baseline\":\"b\",\"key\":\"k\",\"batch\":4096,\"order\":\"BA\","
                + "\"round\":2,\"position\":0.5,\"probe_ns\":4396,\"baseline_ns\":4096.25,\"probe_guest_ns\":1234.0,"
                + "\"baseline_guest_ns\":null,\"translations\":3}", PairRows.line(r));
    }

    @Test
    void aMalformedRowNamesFileLineAndFieldOrIsSkipped() throws IOException {
        Path file = dir.resolve("pairs.jsonl");
        Files.writeString(file, ON + "\n" + ON.replace("\"order\":\"AB\"", "\"order\":\"XY\"") + "\n");
        BadInputException e = assertThrows(BadInputException.class, () -> PairRows.read(file, false, false, new ArrayList<>()));
        assertTrue(e.getMessage().contains("pairs.jsonl:2: field 'order'"), e.getMessage());
        List<BadRow> bad = new ArrayList<>();
        assertEquals(1, PairRows.read(file, false, true, bad).size());
        assertEquals("pairs.jsonl:2: field 'order' must be \"AB\" or \"BA\", got \"XY\"", bad.get(0).toString());
    }

    @Test
    void runJsonIsWrittenAsBefore() throws IOException {
        FinishedRun run = new FinishedRun("run-01", 2092789425003139053L,
                "03eeb400c1bdbc8c058310f32561ebf283c79c39c56f6cb81618f38954b1f5cc", 60, 240, 2.6010118209036035,
                2.600533043167637, FOOTER, "2026-12-01T10:30:38.360397195Z", Map.of());
        String text = """
                {
                  "run" : "run-01",
                  "seed" : 2092789425003139053,
                  "probe_sha256" : "03eeb400c1bdbc8c058310f32561ebf283c79c39c56f6cb81618f38954b1f5cc",
                  "pairs" : 60,
                  "windows" : 240,
                  "guest_ticks_per_ns_timing" : 2.6010118209036035,
                  "guest_ticks_per_ns_off" : 2.600533043167637,
                  "timing_footer" : {
                    "windows" : 240,
                    "nested_starts" : 0,
                    "inactive_stops" : 0,
                    "translation_failures" : 0,
                    "timer_failures" : 0,
                    "open_windows" : 0,
                    "vcpus" : 1,
                    "translations" : 2106
                  },
                  "finished" : "2026-12-01T10:30:38.360397195Z"
                }
                """;
        assertEquals(text, run.toJson());
        Path file = dir.resolve("run.json");
        run.write(file);
        assertEquals(run, FinishedRun.read(file));
    }

    @Test
    void runJsonRecordsTheChecksumsOfTheRunsFiles() {
        Map<String, String> sums = new LinkedHashMap<>();
        sums.put("pairs.jsonl", "aa");
        sums.put("pairs-off.jsonl", "bb");
        sums.put("closure.json", "cc");
        FinishedRun run = new FinishedRun("run-01", 1, "dd", 60, 240, 2.6, 2.6, FOOTER, "2026-12-01T10:30:38Z", sums);
        assertTrue(run.toJson().endsWith("\"files_sha256\" : {\n    \"pairs.jsonl\" : \"aa\",\n"
                + "    \"pairs-off.jsonl\" : \"bb\",\n    \"closure.json\" : \"cc\"\n  }\n}\n"), run.toJson());
        Path file = dir.resolve("run.json");
        run.write(file);
        assertEquals(run, FinishedRun.read(file));
    }

    @Test
    void aTruncatedClosureIsALocatedOneLineError() throws IOException {
        RunClosure closed = new RunClosure("run-01", true, 240, 240, 60, 60, FOOTER, List.of());
        Path file = dir.resolve("closure.json");
        closed.write(file);
        String text = Files.readString(file);
        Files.writeString(file, text.substring(0, text.length() / 2));
        BadInputException e = assertThrows(BadInputException.class, () -> RunClosure.read(file));
        assertTrue(e.getMessage().matches(java.util.regex.Pattern.quote(file.toString())
                + ":\\d+:\\d+: not valid JSON: Unexpected end-of-input.*"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }

    /**
     * Leading zero bytes made Jackson read a weights file as UTF-32 and fail with an unlocated I/O
     * error (an internal error, exit 3; found by session 8's fuzz run). The weigh files are UTF-8:
     * such a file is a located refusal like any invalid JSON, and bytes that are not UTF-8 are
     * refused at their offset.
     */
    @Test
    void aFileJacksonWouldReadAsUtf32IsALocatedRefusal() throws IOException {
        Path file = dir.resolve("weights.json");
        Files.write(file, new byte[] {0, 0, 0, '{', 0, 0, 0, '}', (byte) 0xff, 0, 0, 0});
        BadInputException e = assertThrows(BadInputException.class, () -> Weights.read(file));
        assertTrue(e.getMessage().startsWith(file + ": offset 0x8: not UTF-8"), e.getMessage());
        Files.write(file, new byte[] {0, 0, 0, '{', 0, 0, 0, '}'});
        e = assertThrows(BadInputException.class, () -> Weights.read(file));
        assertTrue(e.getMessage().matches(java.util.regex.Pattern.quote(file.toString())
                + ":\\d+:\\d+: not valid JSON: .*"), e.getMessage());
        Files.write(file, new byte[] {0, 0, 0, '[', 0, 0, 0, ']'});
        e = assertThrows(BadInputException.class, () -> Catalog.read(file));
        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    }

    @Test
    void closuresRoundTrip() {
        RunClosure open = new RunClosure("run-02", false, 240, 240, 60, 58, FOOTER, List.of(
                new RunClosure.Failure(3, "div.dependency", 65535, 65536, null),
                new RunClosure.Failure(7, "mul.dependency", 4096, 4096,
                        "encoding 0x2b50533 (4 bytes): probe - baseline 4095, expected 4096")));
        RunClosure closed = new RunClosure("run-01", true, 240, 240, 60, 60, FOOTER, List.of());
        open.write(dir.resolve("closure-run.json"));
        assertEquals(open, RunClosure.read(dir.resolve("closure-run.json")));
        assertTrue(open.toJson().contains("\"mismatch\" : null"), open.toJson());
        CampaignClosure all = new CampaignClosure(false, 0, 0, 0, 0, 0, List.of(closed, open));
        all.write(dir.resolve("closure.json"));
        CampaignClosure read = CampaignClosure.read(dir.resolve("closure.json"));
        assertEquals(all, read);
        assertEquals(all.toJson(), read.toJson());
    }

    @Test
    void manifestRoundTripsAndReadsLeniently() throws IOException {
        Map<String, Double> blocks = new LinkedHashMap<>();
        blocks.put("nop.baseline", 7.0);
        blocks.put("div.dependency", 8.0);
        Manifest m = new Manifest(new Manifest.Host("vm", "AMD EPYC", 2, "6.1", "qemu-riscv64 version 7.2", "17"),
                new Manifest.Hashes("aa", "bb"),
                new Manifest.Options("quick", "div.dependency", 2, 4, 3, 1, 1024, List.of(4096, 16384, 65536), 2),
                List.of("div.dependency"), List.of("div.dependency"),
                List.of(new Manifest.Baseline("div.dependency", "nop.baseline")), "2026-12-01T10:30:37Z",
                "2026-12-01T10:30:38Z", List.of(new Manifest.Run("run-01", 5, "cc", "2026-12-01T10:30:38Z", 2.6)),
                blocks);
        Path file = dir.resolve("manifest.json");
        m.write(file);
        assertEquals(m, Manifest.read(file));
        assertTrue(m.toJson().startsWith("{\n  \"schema\" : \"splice.weigh.campaign/1\",\n  \"host\" : {"), m.toJson());
        Files.writeString(file, "{\"contexts\": [\"a.x\", {\"context\": \"b.y\"}, 5, {\"other\": 1}], \"runs\": 3}");
        Manifest loose = Manifest.read(file);
        assertEquals(List.of("a.x", "b.y"), loose.contexts());
        assertNull(loose.host());
        assertEquals(List.of(), loose.runs());
    }

    @Test
    void aProgramCatalogRoundTripsAndOtherFormsHaveNoOrigin() throws IOException {
        Catalog c = new Catalog(new Catalog.Origin("prog", List.of("a", "b"), 3, 17), List.of(
                new Catalog.Entry("add", "i", 37, 11114, -1, 28),
                new Catalog.Entry("csrrs.fflags", "zicsr", 2, 0, -1, 1)));
        Path file = dir.resolve("catalog.json");
        c.write(file);
        assertEquals(c, Catalog.read(file));
        assertEquals(11114, c.executed());
        assertTrue(c.toJson().contains("\"executed\" : 11114,\n  \"translated\" : 39,\n  \"translation_blocks\" : 17,"),
                c.toJson());
        Path csv = dir.resolve("catalog.csv");
        Files.writeString(csv, "key,count\n# a comment\ndiv,10\n");
        Catalog fromCsv = Catalog.read(csv);
        assertNull(fromCsv.origin());
        assertEquals(List.of(new Catalog.Entry("div", null, -1, -1, 10, -1)), fromCsv.entries());
        Files.writeString(file, "[{\"key\": \"div\", \"executed\": 5, \"encodings\": \"many\"}]");
        assertEquals(List.of(new Catalog.Entry("div", null, -1, 5, -1, -1)), Catalog.read(file).entries());
    }

    @Test
    void aCatalogsBlockCountsRoundTrip() throws IOException {
        Catalog c = new Catalog(new Catalog.Origin("prog", List.of(), 0, 3), List.of(
                new Catalog.Entry("bne", "i", 2, 100, -1, 1)), List.of(new Catalog.Block("branch", 2, 100),
                new Catalog.Block("exit", 1, 1)));
        Path file = dir.resolve("catalog.json");
        c.write(file);
        assertEquals(c, Catalog.read(file));
        assertTrue(c.toJson().endsWith("\"blocks\" : [ {\n    \"kind\" : \"branch\",\n    \"translated\" : 2,\n"
                + "    \"executed\" : 100\n  }, {\n    \"kind\" : \"exit\",\n    \"translated\" : 1,\n"
                + "    \"executed\" : 1\n  } ]\n}\n"), c.toJson());
        Files.writeString(file, "{\"classes\": [], \"blocks\": [{\"kind\": \"branch\"}, {\"kind\": \"branch\"}]}");
        BadInputException e = assertThrows(BadInputException.class, () -> Catalog.read(file));
        assertTrue(e.getMessage().contains("block kind 1"), e.getMessage());
    }
}
