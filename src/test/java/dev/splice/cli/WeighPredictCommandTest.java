package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code splice weigh predict} on count_loop, whose instruction mix is known by construction (5
 * instructions per iteration: addi, xor, add, addi, bne, one block ending in the branch): the
 * difference of two run lengths has exactly that mix, each class is priced by its contexts in a real
 * campaign's weights.json, the branch by the block it ends, and xor, which the campaign leaves out,
 * is reported as unpriced with its share. With the blocks' dependence structure (the catalog's
 * {@code translated_blocks}: the loop block is addi, xor reading it, add reading that, addi, bne
 * reading the second addi), {@code addi} is priced at throughput ({@code addi.independent}, not the
 * chain), {@code add} by its only context, and the loop block adds the excess of its longest chain
 * (addi, xor, add at latency prices) over its throughput and exit, which is 0 unless the chain is
 * longer.
 */
class WeighPredictCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SHORT = 100_000;
    private static final long LONG = 200_000;
    @TempDir static Path tmp;
    static Path weights;
    static Path shortRun;
    static Path longRun;

    @BeforeAll
    static void measureAndCatalog() {
        Path campaign = tmp.resolve("campaign");
        assertEquals(0, Main.execute("weigh", "measure", "--contexts",
                "addi.dependency,addi.independent,add.dependency,bne.taken,bne.not-taken", "--runs", "2", "--rounds", "4", "--seed", "3",
                "-o", campaign.toString()));
        assertEquals(0, Main.execute("weigh", "model", campaign.toString(), "-o", tmp.resolve("model").toString()));
        weights = tmp.resolve("model/weights.json");
        shortRun = catalog(SHORT);
        longRun = catalog(LONG);
    }

    private static Path catalog(long n) {
        Path out = tmp.resolve("count_loop-" + n + ".json");
        // the exit status is the program's (a function of the loop's result)
        Main.execute("weigh", "catalog", "-o", out.toString(), "--", TestPrograms.rv64("count_loop.norvc").toString(),
                Long.toString(n));
        assertTrue(Files.isRegularFile(out), out.toString());
        return out;
    }

    private static Map<String, JsonNode> byName(JsonNode array) {
        Map<String, JsonNode> out = new HashMap<>();
        array.forEach(n -> out.put(n.path("name").asText(), n));
        return out;
    }

    @Test
    void theDifferenceOfTwoRunLengthsIsPricedClassByClass() throws IOException {
        CliRun r = CliRun.of("weigh", "predict", weights.toString(), longRun.toString(), "--minus", shortRun.toString(),
                "--json");
        assertEquals(0, r.status(), r.err());
        JsonNode p = JSON.readTree(r.out());
        JsonNode model = JSON.readTree(weights.toFile());
        Map<String, JsonNode> w = byName(renamed(model.path("contexts")));
        long n = LONG - SHORT;

        Map<String, JsonNode> classes = byName(p.path("classes"));
        Map<String, Long> expected = Map.of("addi", 2 * n, "xor", n, "add", n, "bne", n);
        for (Map.Entry<String, JsonNode> c : classes.entrySet()) {
            assertEquals(expected.getOrDefault(c.getKey(), 0L), c.getValue().path("count").asLong(), c.getKey());
        }
        assertEquals(5 * n, p.path("instructions").asLong());
        assertEquals(n, p.path("unpriced_instructions").asLong());
        assertEquals(0.2, p.path("unpriced_share").asDouble(), 1e-12);
        assertTrue(classes.get("xor").path("ns").isNull());
        assertTrue(classes.get("bne").path("ns").isNull());
        JsonNode addi = w.get("addi.independent");
        JsonNode add = w.get("add.dependency");
        assertEquals(addi.path("weight_ns").asDouble(), classes.get("addi").path("ns").asDouble());

        // the loop block as the plugin recorded it, and entered n times more in the longer run
        JsonNode loop = null;
        for (JsonNode t : JSON.readTree(longRun.toFile()).path("translated_blocks")) {
            if (t.path("keys").toString().equals("[\"addi\",\"xor\",\"add\",\"addi\",\"bne\"]")) {
                loop = t;
            }
        }
        assertTrue(loop != null, "no loop block in the catalog");
        assertEquals("[[],[0],[1],[],[3]]", loop.path("producers").toString());
        assertEquals("branch", loop.path("kind").asText());
        assertEquals(LONG, loop.path("entered").asLong());

        Map<String, JsonNode> blocks = byName(p.path("blocks"));
        for (Map.Entry<String, JsonNode> b : blocks.entrySet()) {
            long expectedCount = b.getKey().equals("branch") || b.getKey().equals("critical-path-excess") ? n : 0;
            assertEquals(expectedCount, b.getValue().path("count").asLong(), b.getKey());
        }
        JsonNode taken = w.get("bne.taken");
        JsonNode notTaken = w.get("bne.not-taken");
        double branch = (taken.path("weight_ns").asDouble() + notTaken.path("weight_ns").asDouble()) / 2;
        assertEquals(branch, blocks.get("branch").path("ns").asDouble(), 1e-12);

        // the loop's chain addi -> xor (unpriced) -> add against 2 addi + add + the branch block
        double chain = w.get("addi.dependency").path("weight_ns").asDouble() + add.path("weight_ns").asDouble();
        double through = 2 * addi.path("weight_ns").asDouble() + add.path("weight_ns").asDouble() + branch;
        double excess = n * Math.max(0, chain - through);
        assertEquals(excess, n * blocks.get("critical-path-excess").path("ns").asDouble(), 1e-9 * (1 + excess));
        double predicted = 2 * n * addi.path("weight_ns").asDouble() + n * add.path("weight_ns").asDouble() + n * branch
                + excess;
        assertEquals(predicted / 1e9, p.path("predicted_s").asDouble(), 1e-12 * predicted);
        double low = 2 * n * addi.path("ci_low_ns").asDouble() + n * add.path("ci_low_ns").asDouble()
                + n * Math.min(taken.path("ci_low_ns").asDouble(), notTaken.path("ci_low_ns").asDouble());
        double high = 2 * n * addi.path("ci_high_ns").asDouble() + n * add.path("ci_high_ns").asDouble()
                + n * Math.max(taken.path("ci_high_ns").asDouble(), notTaken.path("ci_high_ns").asDouble());
        JsonNode cp = blocks.get("critical-path-excess");
        assertEquals(low / 1e9 + n * cp.path("low_ns").asDouble() / 1e9, p.path("low_s").asDouble(),
                1e-9 * Math.abs(low));
        assertEquals(high / 1e9 + n * cp.path("high_ns").asDouble() / 1e9, p.path("high_s").asDouble(), 1e-9 * high);
        assertTrue(p.path("low_s").asDouble() <= p.path("predicted_s").asDouble()
                && p.path("predicted_s").asDouble() <= p.path("high_s").asDouble(), p.toString());
    }

    /** The contexts array keyed by {@code context} under {@code name}, as {@link #byName} reads it. */
    private static JsonNode renamed(JsonNode contexts) {
        var out = JSON.createArrayNode();
        contexts.forEach(c -> out.add(((com.fasterxml.jackson.databind.node.ObjectNode) c.deepCopy())
                .put("name", c.path("context").asText())));
        return out;
    }

    @Test
    void theTextNamesTheUnpricedClassAndTheTotal() {
        CliRun r = CliRun.of("weigh", "predict", weights.toString(), longRun.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("xor ") && l.contains("unpriced: no context measures it")),
                r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("predicted ") && l.contains(" s [")), r.out());
    }

    @Test
    void aCatalogWithoutBlockCountsIsRefused() throws IOException {
        Path old = tmp.resolve("old.csv");
        Files.writeString(old, "key,count\naddi,10\n");
        CliRun r = CliRun.of("weigh", "predict", weights.toString(), old.toString());
        assertEquals(Main.BAD_INPUT, r.status());
        assertTrue(r.err().contains("has no block counts"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }
}
