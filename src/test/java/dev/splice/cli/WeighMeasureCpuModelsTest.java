package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.weigh.campaign.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session 8's CPU-bound contexts in quick campaigns on their CPU models (issue 14): e16, LMUL 4 and
 * LMUL 1/2 vector contexts against their own vector root baselines, and the scalar crypto contexts
 * (Zkne, Zknh, Zksed, Zkr). Validation closes, and manifest.json and every run.json name the
 * {@code -cpu} model (absent on QEMU's default, as before).
 */
class WeighMeasureCpuModelsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String VECTOR_CPU = "rv64,v=true,vlen=128,vext_spec=v1.0";
    static final String CRYPTO_CPU = "rv64,zknd=true,zkne=true,zknh=true,zksed=true,zksh=true,zkr=true";
    private static final String VECTOR = "vadd.vv.dependency.e16m4.vlen128,vle16.v.hot-load.e16mf2.vlen128,"
            + "vle16.v.hot-load.e16m4.vlen128,vfadd.vv.dependency.e16m1.vlen128,vredsum.vs.dependency.e8mf2.vlen128";
    private static final String CRYPTO = "aes64es.dependency,sha256sig0.dependency,sm4ed.dependency,csrrw.seed";
    @TempDir static Path tmp;
    static Path vector;
    static Path crypto;

    @BeforeAll
    static void measure() {
        vector = tmp.resolve("vector");
        crypto = tmp.resolve("crypto");
        assertEquals(0, Main.execute("weigh", "measure", "--profile", "quick", "--contexts", VECTOR, "--cpu", VECTOR_CPU,
                "--seed", "8", "--jobs", "2", "-o", vector.toString()), "validation closes on the vector model");
        assertEquals(0, Main.execute("weigh", "measure", "--profile", "quick", "--contexts", CRYPTO, "--cpu", CRYPTO_CPU,
                "--seed", "8", "--jobs", "2", "-o", crypto.toString()), "validation closes on the crypto model");
    }

    /** Median probe minus baseline per target execution, by context, and the baseline each row names. */
    private static Map<String, Double> medians(Path campaign, Map<String, String> baselines) throws IOException {
        Map<String, List<Double>> d = new TreeMap<>();
        for (String line : Files.readAllLines(campaign.resolve("pairs.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            d.computeIfAbsent(r.get("context").asText(), k -> new ArrayList<>())
                    .add((r.get("probe_ns").asDouble() - r.get("baseline_ns").asDouble()) / r.get("batch").asDouble());
            baselines.put(r.get("context").asText(), r.get("baseline").asText());
        }
        Map<String, Double> out = new TreeMap<>();
        d.forEach((k, v) -> {
            v.sort(null);
            out.put(k, v.get(v.size() / 2));
        });
        return out;
    }

    @Test
    void vectorContextsCloseAgainstTheRootBaselineOfTheirConfiguration() throws IOException {
        Map<String, String> baselines = new HashMap<>();
        Map<String, Double> m = medians(vector, baselines);
        System.out.println("vector medians (ns per instruction): " + m);
        assertEquals(Set.of(VECTOR.split(",")), m.keySet());
        baselines.forEach((context, baseline) -> assertEquals(
                "nop.baseline" + context.substring(context.indexOf(".e")), baseline, context));
        // QEMU loads element by element: eight times the elements (m4 against mf2) cost more
        assertTrue(m.get("vle16.v.hot-load.e16m4.vlen128") > 2 * m.get("vle16.v.hot-load.e16mf2.vlen128"), m.toString());
        assertTrue(m.values().stream().allMatch(v -> v > 0), m.toString());
    }

    @Test
    void cryptoContextsClose() throws IOException {
        Map<String, Double> m = medians(crypto, new HashMap<>());
        System.out.println("crypto medians (ns per instruction): " + m);
        assertEquals(Set.of(CRYPTO.split(",")), m.keySet());
    }

    @Test
    void theManifestAndEveryRunNameTheCpuModel() throws IOException {
        for (Path campaign : List.of(vector, crypto)) {
            String cpu = campaign == vector ? VECTOR_CPU : CRYPTO_CPU;
            assertEquals(cpu, JSON.readTree(campaign.resolve("manifest.json").toFile()).path("qemu_cpu").asText());
            assertEquals(Optional.of(cpu), Manifest.read(campaign.resolve("manifest.json")).qemuCpu());
            try (var runs = Files.list(campaign.resolve("runs"))) {
                for (Path run : runs.toList()) {
                    assertEquals(cpu, JSON.readTree(run.resolve("run.json").toFile()).path("qemu_cpu").asText(), run.toString());
                }
            }
        }
        // on QEMU's default model the field is absent, so that those files are written as before
        Manifest m = Manifest.read(vector.resolve("manifest.json"));
        Manifest onDefault = new Manifest(m.host(), m.sha256(), m.options(), m.contexts(), m.selected(), m.baselines(),
                m.started(), m.finished(), m.runs(), m.blocksPerCall(), m.mode());
        assertFalse(onDefault.toJson().contains("qemu_cpu"));
        assertEquals(m.toJson().replaceFirst("\n  \"qemu_cpu\" : \"[^\"]*\",", ""), onDefault.toJson());
    }
}
