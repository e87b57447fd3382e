package dev.splice.weigh.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.cli.Main;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.CoverageTable;
import dev.splice.weigh.model.CoverageSimulation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML reports of a small real campaign (six contexts from five patterns, two runs, measured
 * here under qemu-riscv64) rendered by headless Chromium: the page parses without errors, every
 * panel's SVG is laid out with a non-empty box, and what each chart draws matches weights.json,
 * mapping.json (from {@code splice weigh map}) and the context table, which are its independent
 * sources. A context name full of markup stays text. Chromium is required (never skipped).
 */
class ReportInChromiumTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Five patterns; csrrs.time costs about 30 ns under qemu-riscv64, so the slow-path panel has a bar. */
    private static final String CONTEXTS = "addi.dependency,mul.dependency,ld.hot-load,beq.taken,jalr.indirect-jump,csrrs.time";
    private static final String EVIL = "addi.<script>alert(\"x\")</script>&amp;'<b>";
    @TempDir static Path tmp;
    static Path campaign;
    static Path model;
    static JsonNode weights;
    static JsonNode check;

    @BeforeAll
    static void measureModelAndRender() throws IOException {
        Tools.require("chromium");
        campaign = tmp.resolve("campaign");
        assertEquals(0, Main.execute("weigh", "measure", "--contexts", CONTEXTS, "--runs", "2", "--rounds", "4", "--seed", "3",
                "-o", campaign.toString()));
        Path catalog = tmp.resolve("loops-catalog.json");
        // the exit status is the program's
        Main.execute("weigh", "catalog", "-o", catalog.toString(), "--", TestPrograms.rv64("loops").toString());
        assertTrue(Files.isRegularFile(catalog));
        model = tmp.resolve("model");
        assertEquals(0, Main.execute("weigh", "model", campaign.toString(), "-o", model.toString(), "--bootstrap", "199",
                "--catalog", catalog.toString()));
        assertEquals(0, Main.execute("weigh", "map", model.resolve("weights.json").toString(), catalog.toString(), "-o",
                tmp.resolve("map").toString()));
        weights = JSON.readTree(model.resolve("weights.json").toFile());
        check = render(model.resolve("report.html"));
    }

    /** Renders a copy of the page with the checker appended and returns what the checker found. */
    static JsonNode render(Path page) throws IOException {
        String html = Files.readString(page);
        String script;
        try (InputStream in = ReportInChromiumTest.class.getResourceAsStream("report-check.js")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String catcher = "<script>window.__spliceErrors=[];window.addEventListener('error',function(e){"
                + "window.__spliceErrors.push(String(e.message))});</script>";
        Path copy = tmp.resolve("checked-" + page.getFileName());
        Files.writeString(copy, html.replaceFirst("<head>", "<head>" + catcher).replace("</body>",
                "<script>" + script + "</script></body>"));
        Tools.Result r = Tools.run(List.of("chromium", "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                "--enable-logging=stderr", "--v=0", "--user-data-dir=" + tmp.resolve("chromium-profile"), "--dump-dom",
                copy.toUri().toString()), null, 60).checked("chromium --dump-dom");
        assertFalse(r.stderr().contains("CONSOLE"), "console messages:\n" + r.stderr());
        int start = r.stdout().lastIndexOf("<pre id=\"splice-check\">");
        assertTrue(start >= 0, "the checker ran:\n" + r.stdout().substring(0, Math.min(2000, r.stdout().length())));
        String text = r.stdout().substring(start + "<pre id=\"splice-check\">".length(), r.stdout().indexOf("</pre>", start));
        JsonNode c = JSON.readTree(text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&"));
        assertEquals(0, c.path("errors").size(), c.path("errors").toString());
        assertEquals(2, c.path("scripts").asInt(), "the page has no script of its own");
        return c;
    }

    private static Map<String, JsonNode> svgs(JsonNode c) {
        Map<String, JsonNode> out = new HashMap<>();
        c.path("svgs").forEach(s -> out.put(s.path("id").asText(), s));
        return out;
    }

    private static JsonNode svg(JsonNode c, String id) {
        JsonNode s = svgs(c).get(id);
        assertNotNull(s, "SVG " + id + " is on the page");
        assertTrue(s.path("children").asInt() > 0, id + " has content");
        assertTrue(s.path("bboxWidth").asDouble() > 0 && s.path("bboxHeight").asDouble() > 0, id + " is laid out: " + s);
        assertTrue(s.path("width").asDouble() > 0 && s.path("height").asDouble() > 0, id + " has a size: " + s);
        return s;
    }

    private static List<JsonNode> contexts() {
        List<JsonNode> out = new ArrayList<>();
        weights.path("contexts").forEach(out::add);
        return out;
    }

    @Test
    void everyPanelIsRenderedWithContent() {
        for (String id : List.of("forest-plot", "fast-path", "slow-path", "quality-bars", "catalog-status", "catalog-extensions",
                "effect-order", "effect-drift", "effect-window", "plugin-off-scatter", "event-rate", "funnel-bars",
                "balance-bars", "convergence")) {
            svg(check, id);
        }
        if (weights.path("quality").path("low").asInt() > 0) {
            svg(check, "gate-bars");
        }
        List<JsonNode> cs = contexts();
        for (int i = 0; i < cs.size(); i++) {
            for (String panel : List.of("batches-", "runs-", "residuals-", "events-")) {
                svg(check, panel + "ctx-" + i);
            }
        }
        assertEquals("Instruction weights", check.path("title").asText());
    }

    @Test
    void theForestPlotDrawsEveryContextOnALogAxisGroupedByExtensionAndPattern() {
        JsonNode f = svg(check, "forest-plot");
        assertTrue(f.path("logscale").asBoolean());
        long finite = contexts().stream().filter(c -> c.path("estimate_ns").isNumber()).count();
        assertEquals(finite, f.path("circles").asLong() + f.path("paths").asLong(), "one mark per estimate");
        Set<String> texts = new HashSet<>();
        f.path("texts").forEach(t -> texts.add(t.asText()));
        ContextTable table = ContextTable.load();
        for (JsonNode c : contexts()) {
            String name = c.path("context").asText();
            assertTrue(texts.contains(name), name);
            table.context(name).ifPresent(k -> assertTrue(texts.contains(k.extension() + " · " + k.pattern().label()),
                    "group of " + name));
        }
        // readable ticks: 1-2-5 (or 1-3, or decades) values, never exponents
        assertTrue(texts.contains("1") && texts.contains("10"), texts.toString());
        assertTrue(texts.stream().noneMatch(t -> t.matches(".*\\de[-+]?\\d.*")), texts.toString());
    }

    @Test
    void fastAndSlowPathPanelsHoldTheirContexts() {
        ContextTable table = ContextTable.load();
        long fast = contexts().stream().filter(c -> c.path("estimate_ns").isNumber() && c.path("estimate_ns").asDouble() < 20
                && table.context(c.path("context").asText()).map(k -> HtmlReport.FAST_PATH.contains(k.mnemonic())
                        && k.pattern() != Context.Pattern.BASELINE).orElse(false))
                .count();
        long slow = contexts().stream().filter(c -> c.path("estimate_ns").asDouble() >= 20).count();
        assertTrue(fast >= 3 && slow >= 1, fast + " fast, " + slow + " slow");
        assertEquals(fast, svg(check, "fast-path").path("rects").asLong());
        assertEquals(slow, svg(check, "slow-path").path("rects").asLong());
        assertTrue(svg(check, "slow-path").path("logscale").asBoolean());
        assertFalse(svg(check, "fast-path").path("logscale").asBoolean());
    }

    @Test
    void diagnosticsShowEveryKeptPairAndEveryRunAndAreLinkedFromTheTable() {
        List<JsonNode> cs = contexts();
        JsonNode links = check.path("links");
        assertEquals(cs.size(), links.size());
        for (int i = 0; i < cs.size(); i++) {
            JsonNode c = cs.get(i);
            assertEquals(c.path("context").asText(), links.get(i).path("text").asText());
            assertEquals("diag", links.get(i).path("target").asText(), "the table links to the diagnostics");
            String id = "ctx-" + i;
            assertEquals(c.path("pairs_kept").asLong(), svg(check, "residuals-" + id).path("dots").asLong(),
                    "one residual per kept pair of " + c.path("context").asText());
            long batchPairs = 0;
            for (JsonNode t : svg(check, "batches-" + id).path("texts")) {
                if (t.asText().endsWith(" pairs")) {
                    batchPairs += Long.parseLong(t.asText().replace(" pairs", ""));
                }
            }
            assertEquals(c.path("pairs_kept").asLong(), batchPairs);
            // two runs and the pooled row
            assertEquals(3, svg(check, "runs-" + id).path("circles").asLong());
        }
    }

    @Test
    void theGateTableAndThePluginOffScatterFollowWeightsJson() {
        List<String[]> expected = new ArrayList<>();
        long withOff = 0;
        for (JsonNode c : contexts()) {
            c.path("reasons").forEach(r -> expected.add(new String[] {r.path("gate").asText(), c.path("context").asText()}));
            withOff += c.path("plugin_off").path("estimate_ns").isNumber() && c.path("contrast_ns").isNumber() ? 1 : 0;
        }
        JsonNode rows = check.path("tables").path("gate-table");
        assertEquals(expected.size() + 1, rows.size(), "a header and one row per failed gate");
        for (String[] e : expected) {
            boolean found = false;
            for (JsonNode row : rows) {
                found |= row.get(0).asText().equals(e[0]) && row.get(1).asText().equals(e[1]) && !row.get(2).asText().isEmpty();
            }
            assertTrue(found, e[0] + " of " + e[1] + " with its numbers");
        }
        assertEquals(withOff, svg(check, "plugin-off-scatter").path("circles").asLong());
        assertTrue(svg(check, "plugin-off-scatter").path("logscale").asBoolean());
    }

    @Test
    void theCatalogPanelsCountWhatWeighMapWrites() throws IOException {
        JsonNode mapping = JSON.readTree(tmp.resolve("map/mapping.json").toFile());
        Map<String, Integer> statuses = new HashMap<>();
        mapping.path("classes").forEach(c -> statuses.merge(c.path("status").asText(), 1, Integer::sum));
        JsonNode s = svg(check, "catalog-status");
        assertEquals(statuses.size(), s.path("rects").asInt());
        List<String> texts = new ArrayList<>();
        s.path("texts").forEach(t -> texts.add(t.asText()));
        statuses.forEach((k, v) -> assertEquals(v.toString(), texts.get(texts.indexOf(k) + 1), k));
    }

    @Test
    void theSameCampaignGivesTheSameBytes() throws IOException {
        Path again = tmp.resolve("again");
        assertEquals(0, Main.execute("weigh", "model", campaign.toString(), "-o", again.toString(), "--bootstrap", "199",
                "--catalog", tmp.resolve("loops-catalog.json").toString()));
        assertArrayEquals(Files.readAllBytes(model.resolve("report.html")), Files.readAllBytes(again.resolve("report.html")));
    }

    @Test
    void aContextNameFullOfMarkupStaysText() throws IOException {
        Path evil = tmp.resolve("evil");
        Files.createDirectories(evil);
        for (String f : List.of("pairs.jsonl", "pairs-off.jsonl")) {
            StringBuilder out = new StringBuilder();
            for (String line : Files.readAllLines(campaign.resolve(f))) {
                ObjectNode o = (ObjectNode) JSON.readTree(line);
                if (o.path("context").asText().equals("addi.dependency")) {
                    o.put("context", EVIL);
                }
                out.append(JSON.writeValueAsString(o)).append('\n');
            }
            Files.writeString(evil.resolve(f), out);
        }
        Path out = tmp.resolve("evil-model");
        assertEquals(0, Main.execute("weigh", "model", evil.toString(), "-o", out.toString(), "--bootstrap", "99"));
        JsonNode c = render(out.resolve("report.html"));
        boolean inTable = false;
        for (JsonNode row : c.path("tables").path("context-table")) {
            inTable |= row.get(0).asText().equals(EVIL);
        }
        assertTrue(inTable, "the name reads as written in the table");
        List<String> texts = new ArrayList<>();
        svg(c, "forest-plot").path("texts").forEach(t -> texts.add(t.asText()));
        assertTrue(texts.contains(EVIL), "and in the forest plot");
    }

    /**
     * With {@code --coverage} (a real coverage simulation of a few campaigns) and {@code --prediction}
     * (a real {@code weigh predict --json} of loops' catalog), the page draws one interval per cell and
     * one bar per prediction, with the numbers of both files.
     */
    @Test
    void theCoverageAndPredictionPanelsDrawTheirInputs() throws IOException {
        double se = CoverageSimulation.withinRunSe(10, 10);
        CoverageTable table = new CoverageTable(List.of(
                CoverageSimulation.run(new CoverageSimulation.Setting(10, 10, 1, 0, 4, 99), se, 5, 2).cell(),
                CoverageSimulation.run(new CoverageSimulation.Setting(10, 10, 3, 0.5, 4, 99), se, 6, 2).cell()));
        Path coverage = tmp.resolve("coverage.json");
        Files.writeString(coverage, table.toJson());
        assertEquals(table, CoverageTable.read(coverage));
        Path prediction = tmp.resolve("loops.json");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.out;
        System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = Main.execute("weigh", "predict", model.resolve("weights.json").toString(),
                    tmp.resolve("loops-catalog.json").toString(), "--json");
        } finally {
            System.setOut(saved);
        }
        assertEquals(0, status);
        Files.writeString(prediction, out.toString(StandardCharsets.UTF_8));
        JsonNode p = JSON.readTree(prediction.toFile());
        Path again = tmp.resolve("model-panels");
        assertEquals(0, Main.execute("weigh", "model", campaign.toString(), "-o", again.toString(), "--bootstrap", "199",
                "--coverage", coverage.toString(), "--prediction", prediction.toString()));
        JsonNode c = render(again.resolve("report.html"));
        assertEquals(table.cells().size(), svg(c, "coverage-sim").path("circles").asInt(), "one interval per cell");
        assertEquals(1, svg(c, "predictions").path("rects").asInt(), "one bar per prediction");
        JsonNode rows = c.path("tables").path("prediction-table");
        assertEquals(2, rows.size());
        assertEquals("loops", rows.get(1).get(0).asText());
        assertEquals(Axis.label(p.path("predicted_s").asDouble()), rows.get(1).get(1).asText());
        assertEquals(Axis.label(p.path("unpriced_share").asDouble()), rows.get(1).get(4).asText());
        assertEquals(Files.readString(model.resolve("weights.json")), Files.readString(again.resolve("weights.json")),
                "the panels change the page only");
    }

    @Test
    void theSideBySidePageShowsBothModesAndTheirRatio() throws IOException {
        ObjectNode system = (ObjectNode) weights.deepCopy();
        system.put("mode", "system");
        system.remove("qemu_cpu"); // as a weights.json written before the field existed
        Path systemFile = tmp.resolve("system-weights.json");
        Files.writeString(systemFile, JSON.writeValueAsString(system));
        Path page = tmp.resolve("compare.html");
        Path user = model.resolve("weights.json");
        assertEquals(0, Main.execute("weigh", "report", "--compare", user.toString(), systemFile.toString(), "-o",
                page.toString()));
        JsonNode c = render(page);
        assertTrue(svg(c, "compare-plot").path("logscale").asBoolean());
        String text = Files.readString(page);
        assertTrue(text.contains("measured in user mode on QEMU") && text.contains("default CPU model (no -cpu)"),
                "the user side's CPU model (weigh model copies qemu_cpu, default for none)");
        assertTrue(text.contains("measured in system mode, CPU model not recorded"), "an older file's unknown CPU model");
        long positive = contexts().stream().filter(x -> x.path("estimate_ns").asDouble() > 0).count();
        assertEquals(positive, svg(c, "ratio-bars").path("rects").asLong());
        JsonNode rows = c.path("tables").path("compare-table");
        assertEquals(contexts().size() + 1, rows.size());
        for (int i = 1; i < rows.size(); i++) {
            JsonNode row = rows.get(i);
            assertEquals(row.get(2).asText(), row.get(5).asText(), "same estimate in both columns");
            if (Double.parseDouble(row.get(2).asText()) > 0) {
                assertEquals("1", row.get(8).asText(), "the ratio of equal weights");
            }
            assertFalse(row.get(10).asText().isEmpty(), "a mechanism");
        }
        assertEquals("user", weights.path("mode").asText(), "weigh model copies the campaign's mode");
        Path swapped = tmp.resolve("swapped.html");
        assertEquals(0, Main.execute("weigh", "report", "--compare", systemFile.toString(), user.toString(), "-o",
                swapped.toString()), "the modes, not the order, tell the sides apart");
        assertEquals(Files.readString(page), Files.readString(swapped));
        assertEquals(Main.BAD_INPUT, Main.execute("weigh", "report", "--compare", user.toString(), user.toString(), "-o",
                tmp.resolve("wrong.html").toString()), "two user-mode files");
        assertFalse(Files.exists(tmp.resolve("wrong.html")));
    }
}
