package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
            // Validation covers every window of the probe: the two rounds and the discarded burn-in round.
            assertEquals(CONTEXT_COUNT * 3 * (2 + 1), run.path("pairs_closed").asInt(), run.toString());
            assertEquals(1, run.path("footer").path("vcpus").asInt());
        }
        JsonNode manifest = JSON.readTree(campaign.resolve("manifest.json").toFile());
        assertEquals("system", manifest.path("mode").asText());
        assertTrue(manifest.path("host").path("qemu").asText().contains("7.2"), manifest.toString());
        assertEquals("system", JSON.readTree(campaign.resolve("runs/run-01/run.json").toFile()).path("mode").asText());
    }

    @Test
    void blocksAreCountedOnTheSystemEmulatorForSystemOnlyContextsToo() throws IOException {
        JsonNode blocks = JSON.readTree(campaign.resolve("blocks.json").toFile());
        assertTrue(blocks.path("method").asText().startsWith("qemu-system-riscv64 -d exec,nochain"), blocks.toString());
        // every ecall ends its block: the prologue up to the first, one per slot after it, and the epilogue;
        // so does every CSR access (QEMU leaves the block after each, to see changed state). Their kernels
        // have the slots design.json gives them (named KEY@SLOTS below 1024: docs/weigh-measure.md)
        JsonNode design = JSON.readTree(campaign.resolve("design.json").toFile()).path("contexts");
        for (String c : List.of("ecall.smode", "csrrs.sscratch.smode")) {
            int slots = design.path(c).path("slots").asInt();
            assertTrue(slots >= 1 && slots < 1024, c + ": a costly context gets a smaller kernel: " + design);
            assertEquals(slots + 1.0, blocks.path("contexts").path(c + "@" + slots).path("blocks_per_call").asDouble(),
                    c + ": " + blocks);
        }
        int faultSlots = design.path("ld.page-fault.smode").path("slots").asInt();
        String fault = faultSlots == 1024 ? "ld.page-fault.smode" : "ld.page-fault.smode@" + faultSlots;
        assertEquals(1024, design.path("ld.tlb-miss.smode").path("slots").asInt(), "a TLB-flushing context keeps 1024");
        assertTrue(blocks.path("contexts").path(fault).path("blocks_per_call").asDouble() > 0, blocks.toString());
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

    @Test
    void theBareMetalProgramsCatalogHasItsLoopCountsAndMapsOntoSystemWeights() throws IOException {
        Path catalog = tmp.resolve("traps.catalog.json");
        CliRun r = CliRun.of("weigh", "catalog", "--mode", "system", "-o", catalog.toString(), "--",
                "build/programs/rv64-bare/traps");
        assertEquals(0, r.status(), r.err());
        Map<String, Long> executed = new HashMap<>();
        JsonNode cat = JSON.readTree(catalog.toFile());
        for (JsonNode c : cat.path("classes")) {
            executed.put(c.path("key").asText(), c.path("executed").asLong());
        }
        // tests/programs/bare/traps.S: 100 M-mode iterations, 50 S-mode ecall round trips, 10 flushes, one illegal instruction
        assertEquals(101, executed.get("csrrs.mstatus.mmode"), "100 reads and the csrs that sets MPP");
        assertEquals(100, executed.get("csrrw.mscratch.mmode"));
        assertEquals(50, executed.get("csrrs.sscratch.smode"));
        assertEquals(51, executed.get("ecall"), "50 round trips and the exit");
        assertEquals(51, executed.get("csrrs.mepc.mmode"), "the handler's return from 50 ecalls and the illegal instruction");
        assertEquals(52, executed.get("mret"), "into S-mode, and 51 returns");
        assertEquals(11, executed.get("sfence.vma"));
        assertEquals(10, executed.get("ld"));
        assertEquals(1, executed.get("csrrw.cycle"));
        assertEquals(160, executed.get("c.bnez"));
        assertFalse(executed.containsKey("csrrs.mhartid.mmode"), "QEMU's reset code (it reads mhartid) is not counted");

        Path model = tmp.resolve("system-model");
        assertEquals(0, Main.execute("weigh", "model", "--bootstrap", "19", "-o", model.toString(), campaign.toString()));
        Path mapping = tmp.resolve("traps-mapping");
        assertEquals(0, Main.execute("weigh", "map", "-o", mapping.toString(), model.resolve("weights.json").toString(),
                catalog.toString()));
        Map<String, JsonNode> classes = new HashMap<>();
        for (JsonNode c : JSON.readTree(mapping.resolve("mapping.json").toFile()).path("classes")) {
            classes.put(c.path("key").asText(), c);
        }
        JsonNode sscratch = classes.get("csrrs.sscratch.smode");
        assertEquals("csrrs.sscratch.smode", sscratch.path("contexts").get(0).asText());
        assertTrue(sscratch.path("measured_ns").isNumber(), "an S-mode CSR read is published as measured in S-mode: " + sscratch);
        assertEquals("restricted", classes.get("csrrs.mstatus.mmode").path("status").asText(), "no M-mode context");
        CliRun predict = CliRun.of("weigh", "predict", "--json", model.resolve("weights.json").toString(), catalog.toString());
        assertEquals(0, predict.status(), predict.err());
        assertTrue(JSON.readTree(predict.out()).path("predicted_s").asDouble() > 0, predict.out());
    }

    @Test
    void machineModeContextsAndTheTimerInterruptCloseValidationAndTwoHartContextsWaitForACampaignOfTheirOwn()
            throws IOException {
        Path dir = tmp.resolve("machine");
        CliRun r = CliRun.of("weigh", "measure", "--mode", "system", "--contexts",
                "csrrs.mstatus.mmode,csrrw.mstatus.mmode,csrrs.mscratch.mmode,csrrw.mepc.mmode,mret.mmode,ecall.mmode,"
                        + "csrrw.stimecmp.timer-interrupt.smode,amoadd.d.amo.contended.smp2.smode",
                "--runs", "2", "--rounds", "2", "--seed", "5", "-o", dir.toString());
        assertEquals(0, r.status(), r.err());
        JsonNode closure = JSON.readTree(dir.resolve("closure.json").toFile());
        assertTrue(closure.path("closed").asBoolean(), closure.toString());
        // six M-mode contexts, their base addi.machine-entry.mmode and mret's jalr.mret-setup.mmode; the interrupt and its base
        assertEquals(10 * 3 * (2 + 1), closure.path("runs").get(0).path("pairs_closed").asInt(), closure.toString());
        List<String> contexts = new ArrayList<>();
        JSON.readTree(dir.resolve("manifest.json").toFile()).path("contexts").forEach(c -> contexts.add(c.asText()));
        assertTrue(contexts.contains("mret.mmode") && contexts.contains("csrrw.stimecmp.timer-interrupt.smode"), contexts.toString());
        assertFalse(contexts.contains("amoadd.d.amo.contended.smp2.smode"), "a two-hart context with others is left out");
        // the bare-metal program's M-mode CSR classes now map onto weights measured in M-mode
        Path model = tmp.resolve("machine-model");
        assertEquals(0, Main.execute("weigh", "model", "--bootstrap", "19", "-o", model.toString(), dir.toString()));
        Path catalog = tmp.resolve("traps-for-machine.catalog.json");
        assertEquals(0, CliRun.of("weigh", "catalog", "--mode", "system", "-o", catalog.toString(), "--",
                "build/programs/rv64-bare/traps").status());
        Path mapping = tmp.resolve("traps-machine-mapping");
        assertEquals(0, Main.execute("weigh", "map", "-o", mapping.toString(), model.resolve("weights.json").toString(),
                catalog.toString()));
        JsonNode mstatus = null;
        JsonNode mret = null;
        for (JsonNode c : JSON.readTree(mapping.resolve("mapping.json").toFile()).path("classes")) {
            if (c.path("key").asText().equals("csrrs.mstatus.mmode")) {
                mstatus = c;
            }
            if (c.path("key").asText().equals("mret")) {
                mret = c;
            }
        }
        assertEquals("csrrs.mstatus.mmode", mstatus.path("contexts").get(0).asText(), String.valueOf(mstatus));
        assertTrue(mstatus.path("measured_ns").isNumber(), "published as measured in M-mode: " + mstatus);
        // mret has no CSR, so its class key has no privilege: the context mret.mmode belongs to it by
        // the prefix rule (mret only runs in M-mode), and is published as measured there
        assertEquals("[\"mret.mmode\"]", mret.path("contexts").toString(), String.valueOf(mret));
        // The class follows its context's weight. Two runs of two rounds give mret.mmode 12 pairs,
        // and one disturbed pair can leave it without a weight (session 19's CI: the class came out
        // unpublished; by hand one campaign in six gave an interval of -22 to +29 us): the class
        // must then say so.
        JsonNode weight = null;
        for (JsonNode c : JSON.readTree(model.resolve("weights.json").toFile()).path("contexts")) {
            if (c.path("context").asText().equals("mret.mmode")) {
                weight = c.path("weight_ns");
            }
        }
        assertNotNull(weight, "mret.mmode is in weights.json");
        if (weight.isNumber()) {
            assertTrue(mret.path("measured_ns").isNumber(), "published as measured in M-mode: " + mret);
        } else {
            assertEquals("unpublished", mret.path("status").asText(), "no weight for mret.mmode: " + mret);
            assertTrue(mret.path("measured_ns").isNull(), "no weight for mret.mmode: " + mret);
        }

        Path smp = tmp.resolve("smp2");
        CliRun two = CliRun.of("weigh", "measure", "--mode", "system", "--contexts",
                "amoadd.d.amo.*.smp2.smode,sc.d.reservation-pair.*.smp2.smode", "--runs", "1", "--rounds", "1", "--seed", "5",
                "-o", smp.toString());
        assertEquals(0, two.status(), two.err());
        JsonNode twoClosure = JSON.readTree(smp.resolve("closure.json").toFile());
        assertTrue(twoClosure.path("closed").asBoolean(), twoClosure.toString());
        JsonNode run = twoClosure.path("runs").get(0);
        // contended and quiet AMO, the two SC pairs and their LR bases; the second hart's contention loop is not counted
        assertEquals(6 * 3 * 2, run.path("pairs_closed").asInt(), run.toString());
        assertEquals(2, run.path("footer").path("vcpus").asInt(), run.toString());
    }

    @Test
    void sretFromSupervisorModeClosesValidationAgainstItsJalrTwin() throws IOException {
        Path dir = tmp.resolve("sret");
        CliRun r = CliRun.of("weigh", "measure", "--mode", "system", "--contexts", "sret.smode", "--runs", "1",
                "--rounds", "1", "--seed", "5", "-o", dir.toString());
        assertEquals(0, r.status(), r.err());
        JsonNode closure = JSON.readTree(dir.resolve("closure.json").toFile());
        assertTrue(closure.path("closed").asBoolean(), closure.toString());
        // sret.smode and its base jalr.sret-setup.smode, three batches, the round and the burn-in round
        assertEquals(2 * 3 * (1 + 1), closure.path("runs").get(0).path("pairs_closed").asInt(), closure.toString());
    }

    /**
     * A trap taken into S-mode and returned from with sret (a store page fault the monitor delegates
     * to its S-mode handler) closes validation against nop, and costs more than the sret alone, which
     * its round trip includes.
     */
    @Test
    void aStoreFaultDelegatedToSupervisorModeClosesValidationAndCostsMoreThanItsSret() throws IOException {
        Path dir = tmp.resolve("delegated");
        CliRun r = CliRun.of("weigh", "measure", "--mode", "system", "--contexts", "sd.store-fault.delegated.smode,sret.smode",
                "--runs", "1", "--rounds", "2", "--seed", "5", "-o", dir.toString());
        assertEquals(0, r.status(), r.err());
        JsonNode closure = JSON.readTree(dir.resolve("closure.json").toFile());
        assertTrue(closure.path("closed").asBoolean(), closure.toString());
        Map<String, Double> ns = medianNsPerSlot(dir);
        assertTrue(ns.get("sd.store-fault.delegated.smode") > ns.get("sret.smode"), ns.toString());
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
