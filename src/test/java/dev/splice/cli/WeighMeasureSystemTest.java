package dev.splice.cli;

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
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weigh measure --mode system} end to end on qemu-system-riscv64: validation closes for the
 * representative system-only contexts, the costs order as the mechanisms do, a load on the softmmu
 * costs more than the same load under qemu-riscv64, and resume and atomic outputs behave as in
 * user mode.
 */
class WeighMeasureSystemTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** CSR read/write in S-mode, ecall and illegal-instruction round trips, TLB hit and miss, page fault, AMO, fence.i. */
    private static final String CONTEXTS = String.join(",", "addi.independent", "csrrs.sscratch.smode",
            "csrrw.sscratch.smode", "ecall.smode", "csrrw.cycle.illegal.smode", "ld.hot-load.smode", "ld.tlb-miss.smode",
            "ld.page-fault.smode", "amoadd.d.amo.smode", "fence.i.smode");
    /** The selection plus the baselines it needs: addi.tlb-miss, sfence.vma.all and ld.pointer-chase. */
    private static final int CONTEXT_COUNT = 13;
    @TempDir static Path tmp;
    static Path campaign;

    @BeforeAll
    static void measure() {
        campaign = tmp.resolve("system");
        CliRun r = CliRun.of("weigh", "measure", "--mode", "system", "--contexts", CONTEXTS, "--runs", "2", "--rounds", "2",
                "--seed", "3", "--jobs", "2", "-o", campaign.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith("2 runs (0 resumed), " + CONTEXT_COUNT * 3 * 2 * 2 + " pairs"), r.out());
    }

    @Test
    void validationClosesAndTheModeIsRecorded() throws IOException {
        JsonNode closure = JSON.readTree(campaign.resolve("closure.json").toFile());
        assertTrue(closure.path("closed").asBoolean(), closure.toString());
        for (JsonNode run : closure.path("runs")) {
            assertEquals(CONTEXT_COUNT * 3 * 2, run.path("pairs_closed").asInt(), run.toString());
            assertEquals(1, run.path("footer").path("vcpus").asInt());
        }
        JsonNode manifest = JSON.readTree(campaign.resolve("manifest.json").toFile());
        assertEquals("system", manifest.path("mode").asText());
        assertTrue(manifest.path("host").path("qemu").asText().contains("7.2"), manifest.toString());
        assertEquals("system", JSON.readTree(campaign.resolve("runs/run-01/run.json").toFile()).path("mode").asText());
    }

    @Test
    void costsOrderAsTheMechanismsDo() throws IOException {
        Map<String, Double> ns = medianNsPerSlot(campaign);
        List<String> order = List.of("addi.independent", "ld.hot-load.smode", "ld.tlb-miss.smode", "ecall.smode",
                "ld.page-fault.smode");
        for (int i = 1; i < order.size(); i++) {
            assertTrue(ns.get(order.get(i - 1)) < ns.get(order.get(i)), order.get(i - 1) + " below " + order.get(i) + ": " + ns);
        }
    }

    @Test
    void aLoadOnTheSoftmmuCostsMoreThanUnderQemuUser() throws IOException {
        Path user = tmp.resolve("user-load");
        Path system = tmp.resolve("system-load");
        assertEquals(0, Main.execute("weigh", "measure", "--contexts", "ld.hot-load", "--runs", "1", "--rounds", "3",
                "-o", user.toString()));
        assertEquals(0, Main.execute("weigh", "measure", "--mode", "system", "--contexts", "ld.hot-load", "--runs", "1",
                "--rounds", "3", "-o", system.toString()));
        double u = medianNsPerSlot(user).get("ld.hot-load");
        double s = medianNsPerSlot(system).get("ld.hot-load");
        assertTrue(s > u, "system " + s + " ns, user " + u + " ns");
        // the same probe (same contexts and seed), resumed in user mode: the system-mode run is not kept
        CliRun r = CliRun.of("weigh", "measure", "--contexts", "ld.hot-load", "--runs", "1", "--rounds", "3", "--resume",
                "-o", system.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith("1 runs (0 resumed)"), r.out());
        assertTrue(JSON.readTree(system.resolve("manifest.json").toFile()).path("mode").isMissingNode());
    }

    @Test
    void resumeKeepsFinishedRunsOfTheSameModeAndOutputsAreAtomic() throws IOException {
        Path pairs = campaign.resolve("runs/run-02/pairs.jsonl");
        long run1Done = Files.getLastModifiedTime(campaign.resolve("runs/run-01/run.json")).toMillis();
        byte[] whole = Files.readAllBytes(pairs);
        Files.write(pairs, java.util.Arrays.copyOf(whole, whole.length / 2));
        CliRun r = CliRun.of("weigh", "measure", "--mode", "system", "--contexts", CONTEXTS, "--runs", "2", "--rounds", "2",
                "--seed", "3", "--resume", "-o", campaign.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains(pairs + ": its SHA-256 differs from the one run.json recorded"), r.err());
        assertTrue(r.out().startsWith("2 runs (1 resumed)"), r.out());
        assertEquals(run1Done, Files.getLastModifiedTime(campaign.resolve("runs/run-01/run.json")).toMillis());
        assertEquals(CONTEXT_COUNT * 3 * 2, Files.readAllLines(pairs).size());
        assertEquals(CONTEXT_COUNT * 3 * 2 * 2, Files.readAllLines(campaign.resolve("pairs.jsonl")).size());
        try (Stream<Path> files = Files.walk(campaign)) {
            List<Path> leftovers = files.filter(f -> f.getFileName().toString().contains(".tmp")).toList();
            assertTrue(leftovers.isEmpty(), "temporary files left: " + leftovers);
        }
    }

    /** Per context, the median over pairs of (probe - baseline) thread CPU time per target execution. */
    private static Map<String, Double> medianNsPerSlot(Path dir) throws IOException {
        Map<String, List<Double>> values = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("pairs.jsonl"))) {
            JsonNode row = JSON.readTree(line);
            double d = (row.path("probe_ns").asDouble() - row.path("baseline_ns").asDouble()) / row.path("batch").asDouble();
            values.computeIfAbsent(row.path("context").asText(), k -> new ArrayList<>()).add(d);
        }
        Map<String, Double> out = new HashMap<>();
        values.forEach((k, v) -> out.put(k, v.stream().sorted().toList().get(v.size() / 2)));
        return out;
    }
}
