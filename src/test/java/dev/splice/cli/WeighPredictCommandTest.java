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
import java.util.List;
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
                "addi.dependency,addi.independent,add.dependency,bne.taken,bne.not-taken,ld.hot-load,ld.pointer-chase.l1,"
                        + "ld.pointer-chase.l2,ld.pointer-chase.l3,sd.first-touch,beq.mispredicted", "--runs", "2", "--rounds", "4", "--seed", "3",
                "-o", campaign.toString()));
        assertEquals(0, Main.execute("weigh", "model", campaign.toString(), "-o", tmp.resolve("model").toString()));
        weights = tmp.resolve("model/weights.json");
        shortRun = catalog(SHORT);
        longRun = catalog(LONG);
    }

    private static Path catalog(long n) {
        Path out = tmp.resolve("count_loop-" + n + ".json");
        // the exit status is the program's (a function of the loop's result)
        catalogInto(out, "count_loop.norvc", Long.toString(n));
        return out;
    }

    /**
     * Catalogs one run of a test program into {@code out}, which must then exist.
     *
     * @return the command's exit status (the program's)
     */
    private static int catalogInto(Path out, String program, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("weigh", "catalog", "-o", out.toString(), "--",
                TestPrograms.rv64(program).toString()));
        command.addAll(List.of(args));
        int status = Main.execute(command.toArray(String[]::new));
        assertTrue(Files.isRegularFile(out), out.toString());
        return status;
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
            // the loop's branch is taken every iteration and chained (its target is on the block's page)
            long expectedCount = b.getKey().equals("branch-taken") || b.getKey().equals("critical-path-excess") ? n : 0;
            assertEquals(expectedCount, b.getValue().path("count").asLong(), b.getKey());
        }
        assertTrue(blocks.containsKey("lookup-miss"), blocks.keySet().toString());
        // the loop reads and writes no memory: every level's line counts 0
        for (JsonNode m : p.path("memory")) {
            assertEquals(0, m.path("count").asLong(), m.toString());
        }
        assertTrue(p.path("memory").size() >= 2, p.path("memory").toString());
        JsonNode taken = w.get("bne.taken");
        JsonNode notTaken = w.get("bne.not-taken");
        assertEquals(taken.path("weight_ns").asDouble(), blocks.get("branch-taken").path("ns").asDouble(), 1e-12);

        // the loop's chain addi -> xor (unpriced) -> add against 2 addi + add + the block kind's exit, whose
        // contexts (taken and not taken) are averaged with weights 1 / (band half-width)^2
        double branch = precisionWeighted(taken, notTaken);
        double chain = w.get("addi.dependency").path("weight_ns").asDouble() + add.path("weight_ns").asDouble();
        double through = 2 * addi.path("weight_ns").asDouble() + add.path("weight_ns").asDouble() + branch;
        double excess = n * Math.max(0, chain - through);
        assertEquals(excess, n * blocks.get("critical-path-excess").path("ns").asDouble(), 1e-9 * (1 + excess));
        double predicted = 2 * n * addi.path("weight_ns").asDouble() + n * add.path("weight_ns").asDouble()
                + n * taken.path("weight_ns").asDouble() + excess;
        assertEquals(predicted / 1e9, p.path("predicted_s").asDouble(), 1e-12 * predicted);
        double low = 2 * n * addi.path("ci_low_ns").asDouble() + n * add.path("ci_low_ns").asDouble()
                + n * taken.path("ci_low_ns").asDouble();
        double high = 2 * n * addi.path("ci_high_ns").asDouble() + n * add.path("ci_high_ns").asDouble()
                + n * taken.path("ci_high_ns").asDouble();
        JsonNode cp = blocks.get("critical-path-excess");
        assertEquals(low / 1e9 + n * cp.path("low_ns").asDouble() / 1e9, p.path("low_s").asDouble(),
                1e-9 * Math.abs(low));
        assertEquals(high / 1e9 + n * cp.path("high_ns").asDouble() / 1e9, p.path("high_s").asDouble(), 1e-9 * high);
        assertTrue(p.path("low_s").asDouble() <= p.path("predicted_s").asDouble()
                && p.path("predicted_s").asDouble() <= p.path("high_s").asDouble(), p.toString());
    }

    private static double precisionWeighted(JsonNode... contexts) {
        double sum = 0;
        double precision = 0;
        for (JsonNode c : contexts) {
            double half = Math.max(1e-3, (c.path("ci_high_ns").asDouble() - c.path("ci_low_ns").asDouble()) / 2);
            sum += c.path("weight_ns").asDouble() / (half * half);
            precision += 1 / (half * half);
        }
        return sum / precision;
    }

    /**
     * A sweep over twice the size of a cache level (line_sweep: one {@code ld} per 64-byte line,
     * cyclic), three passes against one: LRU misses every line in the inner levels, so the difference
     * is two passes of loads served by the next level. Their stride predicts all but the first of each
     * pass, which the host's prefetchers hide (no extra price); those two are priced there by the chase
     * context that fits the level minus the one that fits L1.
     */
    @Test
    void theLoadsOfASweepArePricedByTheCacheLevelThatServesThem() throws IOException {
        JsonNode levels = JSON.readTree(sweepCatalog(4, 1).toFile()).path("memory").path("levels");
        assertTrue(levels.size() >= 3, "the host's levels and the working-set levels beyond them: " + levels);
        // twice the second level (L2, 1 MB here): the third holds it (the host's L3, or on a host whose CPUID
        // gives no L3's associativity the 4 MB working-set level), priced by the chase whose ring fits there
        JsonNode third = levels.get(2);
        long bytes = 2 * levels.get(1).path("size_bytes").asLong();
        assertTrue(third.path("size_bytes").asLong() >= bytes, levels.toString());
        String chase = chaseFitting(levels.get(1).path("size_bytes").asLong(), third.path("size_bytes").asLong());
        Path one = sweepCatalog(bytes / 1024, 1);
        Path three = sweepCatalog(bytes / 1024, 3);
        String name = "loads-" + (third.path("working_set").asBoolean() ? "W" : "L") + third.path("level").asInt();
        CliRun r = CliRun.of("weigh", "predict", weights.toString(), three.toString(), "--minus", one.toString(), "--json");
        assertEquals(0, r.status(), r.err());
        JsonNode p = JSON.readTree(r.out());
        Map<String, JsonNode> memory = byName(p.path("memory"));
        Map<String, JsonNode> w = byName(renamed(JSON.readTree(weights.toFile()).path("contexts")));
        // all but the first load of each pass are one line on from their instruction's last: strided
        assertEquals(2, memory.get(name).path("count").asLong(), memory.toString());
        assertEquals(2 * bytes / 64 - 2, memory.get("strided-" + name).path("count").asLong(), memory.toString());
        assertEquals(0, memory.get("strided-" + name).path("ns").asDouble());
        double extra = w.get(chase).path("weight_ns").asDouble()
                - w.get("ld.pointer-chase.l1").path("weight_ns").asDouble();
        assertEquals(extra, memory.get(name).path("ns").asDouble(), 1e-9, memory.get(name).toString());
        // the sweep's ld is priced by its class too, at the hot-load context
        assertEquals(2 * bytes / 64, byName(p.path("classes")).get("ld").path("count").asLong());
        double classes = 0;
        for (JsonNode l : p.path("classes")) {
            classes += l.path("seconds").asDouble();
        }
        double blocks = 0;
        for (JsonNode l : p.path("blocks")) {
            blocks += l.path("seconds").asDouble();
        }
        double total = classes + blocks + memory.get(name).path("seconds").asDouble();
        assertEquals(total, p.path("predicted_s").asDouble(), 1e-9 * total);
    }

    /**
     * A sweep of 4096 KiB touches 1,008 pages more than one of 64 KiB (line_sweep maps its buffer
     * afresh): the difference is priced by {@code sd.first-touch}, which measures a host page fault
     * (microseconds) where its baseline, a store to a resident word after the same setup, costs a few
     * nanoseconds.
     */
    @Test
    void thePagesARunTouchesArePricedByTheFirstTouchContext() throws IOException {
        Path small = sweepCatalog(64, 1);
        Path large = sweepCatalog(4096, 1);
        CliRun r = CliRun.of("weigh", "predict", weights.toString(), large.toString(), "--minus", small.toString(), "--json");
        assertEquals(0, r.status(), r.err());
        JsonNode pages = byName(JSON.readTree(r.out()).path("memory")).get("pages-touched");
        assertEquals(1008, pages.path("count").asLong(), pages.toString());
        Map<String, JsonNode> w = byName(renamed(JSON.readTree(weights.toFile()).path("contexts")));
        double fault = w.get("sd.first-touch").path("weight_ns").asDouble();
        assertEquals(fault, pages.path("ns").asDouble(), 1e-9, pages.toString());
        assertTrue(fault > 1000, "a page fault costs microseconds: " + fault + " ns");
        assertTrue(w.get("sd.resident-page").path("weight_ns").asDouble() < 100, w.get("sd.resident-page").toString());
    }

    /**
     * coin_branches with a fair coin's direction against the same loop on an alternating bit: the
     * difference is the coin's mispredictions (the catalog's predictor model: half of 1,000,000), each
     * priced at twice {@code beq.mispredicted} minus {@code bne.predicted} (a coin's slots against the
     * same setup's predictable ones); the instructions and exits are the same in both runs and cancel but for the
     * branch directions.
     */
    @Test
    void theBranchesTheModelMispredictsArePricedByTheFairCoinsContext() throws IOException {
        Path alternating = coinCatalog();
        Path coin = coinCatalog("coin");
        CliRun r = CliRun.of("weigh", "predict", weights.toString(), coin.toString(), "--minus", alternating.toString(),
                "--json");
        assertEquals(0, r.status(), r.err());
        JsonNode line = byName(JSON.readTree(r.out()).path("blocks")).get("branch-mispredicted");
        assertEquals(500_000, line.path("count").asLong(), 5_000, line.toString());
        Map<String, JsonNode> w = byName(renamed(JSON.readTree(weights.toFile()).path("contexts")));
        // weights are against the root baseline: the coin's cost over its predicted baseline, per slot
        double perSlot = w.get("beq.mispredicted").path("weight_ns").asDouble()
                - w.get("bne.predicted").path("weight_ns").asDouble();
        assertEquals(2 * perSlot, line.path("ns").asDouble(), 1e-9, line.toString());
        // a flush of the host's pipeline: nanoseconds (7 ns by hand on this project's host), where a
        // predicted branch and its chained exit cost under one
        assertTrue(perSlot > 1, "half a misprediction per slot: " + perSlot + " ns");
    }

    /** The catalog of one coin_branches run. */
    private static Path coinCatalog(String... args) {
        Path out = tmp.resolve("coin-" + args.length + ".json");
        catalogInto(out, "coin_branches", args); // the exit status is the program's (its heads)
        return out;
    }

    /** The catalog of one line_sweep run over {@code kb} KiB, {@code passes} times. */
    private static Path sweepCatalog(long kb, int passes) {
        Path out = tmp.resolve("sweep-" + kb + "-" + passes + ".json");
        assertEquals(0, catalogInto(out, "line_sweep", Long.toString(kb), Integer.toString(passes)));
        return out;
    }

    /** The one user-mode pointer-chase context whose working set lies in (from, to] bytes. */
    private static String chaseFitting(long from, long to) {
        List<String> fitting = dev.splice.weigh.ContextTable.load().contexts().stream()
                .filter(c -> c.pattern() == dev.splice.weigh.Context.Pattern.POINTER_CHASE && !c.systemOnly())
                .filter(c -> c.workingSetBytes().isPresent() && c.workingSetBytes().getAsLong() > from
                        && c.workingSetBytes().getAsLong() <= to)
                .map(dev.splice.weigh.Context::key).toList();
        assertEquals(1, fitting.size(), "chases fitting (" + from + ", " + to + "]: " + fitting);
        return fitting.get(0);
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
