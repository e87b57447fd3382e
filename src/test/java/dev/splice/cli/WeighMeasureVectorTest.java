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
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vector contexts measured on their CPU models (issue 14): one quick campaign at vlen=128 and one
 * at vlen=256. Validation closes, each campaign measures only its model's contexts of a selection
 * that names both, and the costs order as QEMU's vector helpers work (element by element for
 * loads and reductions): LMUL 8 above LMUL 1, and vlen 256 above vlen 128 at the same vtype.
 *
 * <p>The campaigns run in alternating rounds and each context keeps its lowest median: a campaign the
 * host slows (stop 30's CI measured vlen 128's loads 1.6-1.7 times their usual cost, while vlen 256's
 * matched) only adds time, so the lowest of three rounds is the undisturbed cost. One probe job leaves
 * the other CPU to the test JVM.
 */
class WeighMeasureVectorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ROUNDS = 3;
    private static final String CONTEXTS = "vle32.v.hot-load.e32m1.*,vle32.v.hot-load.e32m8.*,"
            + "vredsum.vs.dependency.e32m1.*,vredsum.vs.dependency.e32m8.*";
    @TempDir static Path tmp;
    static Map<String, Double> vlen128;
    static Map<String, Double> vlen256;

    @BeforeAll
    static void measure() throws IOException {
        vlen128 = new HashMap<>();
        vlen256 = new HashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            campaign("128", round).forEach((k, v) -> vlen128.merge(k, v, Math::min));
            campaign("256", round).forEach((k, v) -> vlen256.merge(k, v, Math::min));
        }
    }

    private static Map<String, Double> campaign(String vlen, int round) throws IOException {
        Path dir = tmp.resolve("vlen" + vlen + "-" + round);
        assertEquals(0, Main.execute("weigh", "measure", "--profile", "quick", "--contexts", CONTEXTS,
                "--cpu", "rv64,v=true,vlen=" + vlen + ",vext_spec=v1.0", "--seed", String.valueOf(5 + round), "--jobs", "1", "-o",
                dir.toString()), "validation closes at vlen " + vlen);
        Map<String, List<Double>> d = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("pairs.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            d.computeIfAbsent(r.get("context").asText(), k -> new ArrayList<>())
                    .add((r.get("probe_ns").asDouble() - r.get("baseline_ns").asDouble()) / r.get("batch").asDouble());
        }
        Map<String, Double> medians = new HashMap<>();
        d.forEach((k, v) -> {
            v.sort(null);
            medians.put(k.replace(".vlen" + vlen, ""), v.get(v.size() / 2));
        });
        assertTrue(d.keySet().stream().allMatch(k -> k.endsWith(".vlen" + vlen)),
                "the other model's contexts are left out: " + d.keySet());
        return medians;
    }

    @Test
    void eachCampaignMeasuresItsModelsContexts() {
        Set<String> expected = Set.of("vle32.v.hot-load.e32m1", "vle32.v.hot-load.e32m8", "vredsum.vs.dependency.e32m1",
                "vredsum.vs.dependency.e32m8");
        assertEquals(expected, vlen128.keySet());
        assertEquals(expected, vlen256.keySet());
    }

    @Test
    void lmul8CostsMoreThanLmul1() {
        for (Map<String, Double> m : List.of(vlen128, vlen256)) {
            // measured (vlen 128 and 256): loads about 6.5 and 7.5 times, reductions about 4 times
            assertTrue(m.get("vle32.v.hot-load.e32m8") > 3 * m.get("vle32.v.hot-load.e32m1"), m.toString());
            assertTrue(m.get("vredsum.vs.dependency.e32m8") > 1.5 * m.get("vredsum.vs.dependency.e32m1"), m.toString());
        }
    }

    @Test
    void vlen256CostsMoreThanVlen128AtTheSameVtype() {
        // twice the elements per instruction. Against the root baseline of their own vtype (session 8) the
        // per-instruction helper cost that does not grow with vlen stays in both: one quick campaign measured
        // only 1.15 (m1) and 1.26 (m8) times (about 1.8 against nop.baseline in session 7), so the bound is 1.1.
        // On session 16's Zen 4 host twenty campaign pairs measured 1.84-1.99 (m1) and 1.96-2.07 (m8).
        for (String key : List.of("vle32.v.hot-load.e32m1", "vle32.v.hot-load.e32m8")) {
            assertTrue(vlen256.get(key) > 1.1 * vlen128.get(key), key + ": " + vlen128 + " " + vlen256);
        }
    }
}
