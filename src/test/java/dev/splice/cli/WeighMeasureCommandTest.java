package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A quick campaign end to end: the documented files, TCG's cost order, and the model reading it unchanged. */
class WeighMeasureCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONTEXTS =
            "addi.independent,mul.dependency,div.dependency,jalr.indirect-jump,fdiv.d.dependency.nx-*";
    /** The selection plus jal.direct-jump, jalr's baseline. */
    private static final int CONTEXT_COUNT = 7;
    @TempDir static Path tmp;
    static Path campaign;

    @BeforeAll
    static void measure() {
        campaign = tmp.resolve("campaign");
        assertEquals(0, Main.execute("weigh", "measure", "--profile", "quick", "--contexts", CONTEXTS, "--seed", "5",
                "--jobs", "2", "-o", campaign.toString()));
    }

    private static List<JsonNode> rows(String file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(campaign.resolve(file))) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    @Test
    void theDocumentedFilesAreThere() throws IOException {
        JsonNode manifest = JSON.readTree(campaign.resolve("manifest.json").toFile());
        for (String f : List.of("host", "sha256", "options", "contexts", "runs", "started", "finished")) {
            assertTrue(manifest.has(f), "manifest." + f);
        }
        assertTrue(manifest.path("host").path("qemu").asText().contains("7.2"), manifest.path("host").toString());
        assertEquals(64, manifest.path("sha256").path("plugin").asText().length());
        assertEquals(2, manifest.path("runs").size());
        assertEquals(64, manifest.path("runs").get(0).path("probe_sha256").asText().length());
        JsonNode closure = JSON.readTree(campaign.resolve("closure.json").toFile());
        assertTrue(closure.path("closed").asBoolean());
        assertEquals(0, closure.path("nested_starts").asLong());
        assertEquals(0, closure.path("inactive_stops").asLong());
        // contexts x 3 batches x 4 rounds x 2 runs
        List<JsonNode> on = rows("pairs.jsonl");
        List<JsonNode> off = rows("pairs-off.jsonl");
        assertEquals(CONTEXT_COUNT * 3 * 4 * 2, on.size());
        assertEquals(on.size(), off.size());
        for (JsonNode r : on) {
            for (String f : List.of("run", "context", "baseline", "batch", "order", "round", "position", "probe_ns",
                    "baseline_ns", "probe_guest_ns", "baseline_guest_ns", "translations")) {
                assertTrue(r.has(f) && !r.get(f).isNull(), f + " in " + r);
            }
        }
        for (JsonNode r : off) {
            assertTrue(r.get("probe_ns").isNull() && r.get("probe_guest_ns").isNumber(), r.toString());
        }
        // translation blocks per kernel call: every jalr ends a block, straight-line adds share a few
        // (kernels below 1024 slots are named KEY@SLOTS, docs/weigh-measure.md)
        JsonNode blocks = JSON.readTree(campaign.resolve("blocks.json").toFile()).path("contexts");
        Map<String, Integer> slots = designSlots();
        for (String jump : List.of("jalr.indirect-jump", "jal.direct-jump")) {
            int n = slots.get(jump);
            String kernel = n == 1024 ? jump : jump + "@" + n;
            assertTrue(blocks.path(kernel).path("blocks_per_call").asDouble() >= n, kernel + ": " + blocks);
        }
        int addSlots = slots.get("addi.independent");
        double adds = blocks.path(addSlots == 1024 ? "addi.independent" : "addi.independent@" + addSlots)
                .path("blocks_per_call").asDouble();
        assertTrue(adds >= 2 && adds < 20, blocks.toString());
        assertEquals(adds, manifest.path("blocks_per_call").path("addi.independent").asDouble());
        for (String f : List.of("probe.elf", "validation.records", "timing.records", "timing.clock", "off.clock", "run.json")) {
            assertTrue(Files.isRegularFile(campaign.resolve("runs/run-01").resolve(f)), f);
        }
    }

    @Test
    void eachRunRecordsItsBurnInRoundAndItsCpu() throws IOException {
        for (String run : List.of("run-01", "run-02")) {
            Path dir = campaign.resolve("runs").resolve(run);
            JsonNode done = JSON.readTree(dir.resolve("run.json").toFile());
            assertEquals(1, done.path("burn_in_rounds").asInt(), done.toString());
            // the burn-in round: every (context, batch) once more, before the 4 modelled rounds
            List<JsonNode> burn = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve("burn-in.jsonl"))) {
                burn.add(JSON.readTree(line));
            }
            assertEquals(CONTEXT_COUNT * 3, burn.size());
            assertEquals(CONTEXT_COUNT * 3, Files.readAllLines(dir.resolve("burn-in-off.jsonl")).size());
            assertTrue(burn.stream().allMatch(r -> r.path("round").asInt() == 0), burn.toString());
            int burnLast = burn.stream().mapToInt(r -> r.path("probe_window").asInt()).max().orElseThrow();
            List<JsonNode> measured = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve("pairs.jsonl"))) {
                measured.add(JSON.readTree(line));
            }
            assertEquals(CONTEXT_COUNT * 3 * 4, measured.size());
            assertEquals(CONTEXT_COUNT * 3 * 4, done.path("pairs").asInt());
            assertTrue(measured.stream().allMatch(r -> r.path("probe_window").asInt() > burnLast),
                    "the burn-in round runs first");
            assertEquals(java.util.Set.of(0, 1, 2, 3), measured.stream().map(r -> r.path("round").asInt())
                    .collect(java.util.stream.Collectors.toSet()));
            // pinned to the last CPU this JVM may use (the kernel's list of the test's own thread)
            JsonNode pin = done.path("cpu_pinning");
            String allowed = Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                    .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow().split(":")[1].strip();
            String last = allowed.replaceAll(".*[-,]", "");
            assertTrue(pin.path("pinned").asBoolean(), pin.toString());
            assertEquals(last, pin.path("cpus").asText(), pin.toString());
        }
    }

    private static Map<String, Double> medians(List<JsonNode> rows, String probe, String baseline) {
        Map<String, List<Double>> d = new HashMap<>();
        for (JsonNode r : rows) {
            d.computeIfAbsent(r.get("context").asText(), k -> new ArrayList<>())
                    .add((r.get(probe).asDouble() - r.get(baseline).asDouble()) / r.get("batch").asDouble());
        }
        Map<String, Double> m = new HashMap<>();
        d.forEach((k, v) -> {
            v.sort(null);
            m.put(k, v.get(v.size() / 2));
        });
        return m;
    }

    private static Map<String, Integer> designSlots() throws IOException {
        Map<String, Integer> out = new java.util.TreeMap<>();
        JSON.readTree(campaign.resolve("design.json").toFile()).path("contexts").fields()
                .forEachRemaining(e -> out.put(e.getKey(), e.getValue().path("slots").asInt()));
        return out;
    }

    /**
     * Issue 12: design.json sizes every context's kernel so that its longest window stays near the target
     * (32 us of the timing pass): the costly contexts get fewer slots, every context keeps three distinct
     * batches (calls x its slots), and the measured windows of the largest batch are bounded (the median,
     * at three times the target for a loaded machine; with 1024 slots jalr's were 200 to 450 us).
     */
    @Test
    void windowsAreBoundedAndEveryContextHasThreeBatches() throws IOException {
        Map<String, Integer> slots = designSlots();
        assertEquals(CONTEXT_COUNT, slots.size(), slots.toString());
        // a cheap context's 16-call window of 1024 slots is near the 32 us target on this VM: a slower
        // host halves it once (session 11: 512 slots), no more
        assertTrue(slots.get("addi.independent") >= 512, "cheap contexts keep 512 slots or more: " + slots);
        // div (6.5 ns a slot on the quiet host: 256 slots, near the 7.8 ns bound of 256) and jalr (9.8 ns:
        // 128) are a factor 1.5 apart and meet at 128 under load; mul (2.2 ns: 512) is a factor 4 from jalr
        assertTrue(slots.get("div.dependency") < 1024 && slots.get("jalr.indirect-jump") <= slots.get("div.dependency")
                && slots.get("jalr.indirect-jump") < slots.get("mul.dependency"), slots.toString());
        Map<String, java.util.Set<Integer>> batches = new java.util.TreeMap<>();
        Map<String, List<Double>> longest = new java.util.TreeMap<>();
        for (JsonNode r : rows("pairs.jsonl")) {
            String c = r.path("context").asText();
            int batch = r.path("batch").asInt();
            batches.computeIfAbsent(c, k -> new java.util.TreeSet<>()).add(batch);
            assertEquals(batch, r.path("calls").asInt() * slots.get(c), r.toString());
            if (r.path("calls").asInt() == 16) {
                longest.computeIfAbsent(c, k -> new ArrayList<>())
                        .add(Math.max(r.path("probe_ns").asDouble(), r.path("baseline_ns").asDouble()));
            }
        }
        for (var e : batches.entrySet()) {
            int n = slots.get(e.getKey());
            assertEquals(java.util.Set.of(n, 4 * n, 16 * n), e.getValue(), e.getKey());
        }
        for (var e : longest.entrySet()) {
            double median = e.getValue().stream().sorted().toList().get(e.getValue().size() / 2);
            assertTrue(median < 3 * 32_000, e.getKey() + ": median longest window " + median + " ns");
        }
    }

    @Test
    void costsOrderAsTcgsMechanisms() throws IOException {
        for (Map<String, Double> m : List.of(medians(rows("pairs.jsonl"), "probe_ns", "baseline_ns"),
                medians(rows("pairs-off.jsonl"), "probe_guest_ns", "baseline_guest_ns"))) {
            double addi = m.get("addi.independent");
            double mul = m.get("mul.dependency");
            double div = m.get("div.dependency");
            double jalr = m.get("jalr.indirect-jump");
            assertTrue(addi < mul && mul < div, m.toString());
            assertTrue(div > 3 * mul, "div is a helper call: " + m);
            assertTrue(jalr > 5 && jalr > 50 * Math.max(addi, 0.01), "indirect jumps far above adds: " + m);
            // QEMU's host-FPU fast path needs the inexact flag already set. The gap depends on the host's
            // FPU: about 1.4 times on an AMD EPYC host (7.4 against 5.3 ns), more on others.
            assertTrue(m.get("fdiv.d.dependency.nx-clear") > 1.2 * m.get("fdiv.d.dependency.nx-set"), m.toString());
        }
    }

    @Test
    void theModelReadsTheCampaignUnchanged() throws IOException {
        Path out = tmp.resolve("model");
        assertEquals(0, Main.execute("weigh", "model", campaign.toString(), "-o", out.toString(), "--bootstrap", "49"));
        JsonNode weights = JSON.readTree(out.resolve("weights.json").toFile());
        assertEquals(CONTEXT_COUNT, weights.path("contexts").size());
        assertEquals(0, weights.path("campaign").path("funnel").path("bad_rows_skipped").asInt());
        for (JsonNode c : weights.path("contexts")) {
            assertTrue(c.path("plugin_off").path("pairs").asInt() > 0, c.toString());
        }
        // and its weights map onto a real program's catalog
        Path catalog = tmp.resolve("loops.catalog.json");
        Path loops = dev.splice.testing.TestPrograms.rv64("loops");
        assertEquals(dev.splice.testing.Tools.run("qemu-riscv64", loops.toString()).exitCode(),
                Main.execute("weigh", "catalog", "-o", catalog.toString(), "--", loops.toString()));
        assertEquals(0, Main.execute("weigh", "map", out.resolve("weights.json").toString(), catalog.toString()));
        JsonNode mapping = JSON.readTree(out.resolve("mapping.json").toFile());
        boolean addiMapped = false;
        for (JsonNode c : mapping.path("classes")) {
            addiMapped |= c.path("key").asText().equals("addi") && !c.path("status").asText().equals("unmeasured");
        }
        assertTrue(addiMapped, mapping.toString());
    }

    @Test
    void resumeKeepsFinishedRuns() throws IOException {
        byte[] before = Files.readAllBytes(campaign.resolve("pairs.jsonl"));
        long modified = Files.getLastModifiedTime(campaign.resolve("runs/run-02/run.json")).toMillis();
        assertEquals(0, Main.execute("weigh", "measure", "--profile", "quick", "--contexts", CONTEXTS, "--seed", "5",
                "--resume", "-o", campaign.toString()));
        assertArrayEquals(before, Files.readAllBytes(campaign.resolve("pairs.jsonl")));
        assertEquals(modified, Files.getLastModifiedTime(campaign.resolve("runs/run-02/run.json")).toMillis());

        // a campaign killed during run 2: run 2 has no run.json yet; resuming redoes run 2 only
        byte[] run1 = Files.readAllBytes(campaign.resolve("runs/run-01/pairs.jsonl"));
        long run1Done = Files.getLastModifiedTime(campaign.resolve("runs/run-01/run.json")).toMillis();
        Files.delete(campaign.resolve("runs/run-02/run.json"));
        Files.delete(campaign.resolve("runs/run-02/timing.records"));
        assertEquals(0, Main.execute("weigh", "measure", "--profile", "quick", "--contexts", CONTEXTS, "--seed", "5",
                "--resume", "-o", campaign.toString()));
        assertTrue(Files.isRegularFile(campaign.resolve("runs/run-02/run.json")));
        assertEquals(run1Done, Files.getLastModifiedTime(campaign.resolve("runs/run-01/run.json")).toMillis());
        List<String> lines = Files.readAllLines(campaign.resolve("pairs.jsonl"));
        assertEquals(CONTEXT_COUNT * 3 * 4 * 2, lines.size());
        assertEquals(new String(run1), String.join("\n", lines.subList(0, CONTEXT_COUNT * 3 * 4)) + "\n");
    }

    @Test
    void resumeMeasuresADamagedRunAgainAndNamesTheFile() throws IOException {
        Path pairs = campaign.resolve("runs/run-02/pairs.jsonl");
        byte[] whole = Files.readAllBytes(pairs);
        Files.write(pairs, java.util.Arrays.copyOf(whole, whole.length / 2));
        long run1Done = Files.getLastModifiedTime(campaign.resolve("runs/run-01/run.json")).toMillis();
        CliRun r = CliRun.of("weigh", "measure", "--profile", "quick", "--contexts", CONTEXTS, "--seed", "5",
                "--resume", "-o", campaign.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains(pairs + ": its SHA-256 differs from the one run.json recorded"), r.err());
        assertTrue(r.out().startsWith("2 runs (1 resumed)"), r.out());
        assertEquals(run1Done, Files.getLastModifiedTime(campaign.resolve("runs/run-01/run.json")).toMillis());
        assertEquals(CONTEXT_COUNT * 3 * 4, Files.readAllLines(pairs).size());
        assertEquals(CONTEXT_COUNT * 3 * 4 * 2, Files.readAllLines(campaign.resolve("pairs.jsonl")).size());
    }
}
