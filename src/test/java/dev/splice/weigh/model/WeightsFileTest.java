package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Weights;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** weights.json is written and read by one class: reading what the model wrote gives the same bytes back. */
class WeightsFileTest {
    @TempDir Path dir;

    @Test
    void whatTheModelWritesReadsBackToTheSameBytes() throws IOException {
        SyntheticCampaign s = SyntheticCampaign.typical(3, 5).with(b -> {
            b.baselines = new String[] {"nop.shape", "op000.dependency", "mul.dependency"};
            return b;
        });
        Campaign c = s.campaign();
        // mul.dependency is expected but absent: op002 is unidentifiable, with a reason that carries text
        Campaign withManifest = new Campaign(c.pairs(), c.offPairs(), c.badRows(), Set.of("mul.dependency"), true);
        ModelResult r = WeighModel.run(withManifest, ModelOptions.defaults().withReplicates(30).withThreads(2).withSeed(4));
        r.writeTo(dir);
        Weights read = Weights.read(dir.resolve("weights.json"));
        assertEquals(Files.readString(dir.resolve("weights.json")), read.toJson());
        assertEquals(Files.readString(dir.resolve("weights.csv")), read.toCsv());
        assertEquals(r.weights(), read);
        ContextWeight unidentifiable = read.contexts().get(2);
        assertEquals(ContextWeight.Publication.UNIDENTIFIABLE, unidentifiable.publication());
        assertNull(unidentifiable.weightNs());
        assertTrue(unidentifiable.unidentifiable().startsWith("absent reference"), unidentifiable.unidentifiable());
        assertEquals(3, read.quality().high() + read.quality().low());
        assertEquals(4, read.bootstrap().seed());
    }

    /**
     * weights.json carries the campaign's mode: the manifest's, user mode for a campaign without one,
     * and a file without the field (written before it existed) reads as mode unknown.
     */
    @Test
    void theCampaignsModeIsCopiedIntoTheWeights() throws IOException {
        Campaign c = SyntheticCampaign.typical(2, 5).campaign();
        ModelOptions o = ModelOptions.defaults().withReplicates(30).withThreads(2).withSeed(4);
        assertEquals("user", WeighModel.run(c, o).weights().mode());
        Campaign system = new Campaign(c.pairs(), c.offPairs(), c.badRows(), Set.of(), true, "system");
        WeighModel.run(system, o).writeTo(dir);
        JsonNode root = new ObjectMapper().readTree(dir.resolve("weights.json").toFile());
        assertEquals(List.of("schema", "mode", "model"), names(root).subList(0, 3));
        assertEquals("system", root.path("mode").asText());
        assertEquals("system", Weights.read(dir.resolve("weights.json")).mode());
        ((com.fasterxml.jackson.databind.node.ObjectNode) root).remove("mode");
        Path old = dir.resolve("old-weights.json");
        Files.writeString(old, new ObjectMapper().writeValueAsString(root));
        assertNull(Weights.read(old).mode());
    }

    /**
     * weights.json carries the campaign's CPU model (manifest.json's qemu_cpu, "default" when the manifest
     * names none), the report's summary says it, and a file without the field (written before it existed,
     * or from a campaign without a manifest) reads as unknown.
     */
    @Test
    void theCampaignsCpuModelIsCopiedIntoTheWeights() throws IOException {
        Campaign c = SyntheticCampaign.typical(2, 5).campaign();
        ModelOptions o = ModelOptions.defaults().withReplicates(30).withThreads(2).withSeed(4);
        assertNull(WeighModel.run(c, o).weights().qemuCpu(), "no manifest: unknown");
        String cpu = "rv64,v=true,vlen=256,vext_spec=v1.0";
        Campaign vector = new Campaign(c.pairs(), c.offPairs(), c.badRows(), Set.of(), true, "user", cpu);
        ModelResult r = WeighModel.run(vector, o);
        r.writeTo(dir);
        JsonNode root = new ObjectMapper().readTree(dir.resolve("weights.json").toFile());
        assertEquals(List.of("schema", "mode", "qemu_cpu", "model"), names(root).subList(0, 4));
        assertEquals(cpu, root.path("qemu_cpu").asText());
        assertEquals(cpu, Weights.read(dir.resolve("weights.json")).qemuCpu());
        assertTrue(Files.readString(dir.resolve("report.md")).contains("measured in user mode on CPU model -cpu " + cpu),
                "report.md names the CPU model");
        ((com.fasterxml.jackson.databind.node.ObjectNode) root).remove("qemu_cpu");
        Path old = dir.resolve("old-weights.json");
        Files.writeString(old, new ObjectMapper().writeValueAsString(root));
        assertNull(Weights.read(old).qemuCpu());
        assertEquals("measured in user mode on QEMU's default CPU model (no -cpu)",
                Report.cpuLine("user", Campaign.DEFAULT_CPU));
    }

    /** Schema 2 (issue 12), field by field in the order written (docs/formats.md, "weights.json"). */
    @Test
    void theFileHasSchemaTwosFieldsInOrder() throws IOException {
        ModelResult r = WeighModel.run(SyntheticCampaign.typical(3, 5).campaign(),
                ModelOptions.defaults().withReplicates(30).withThreads(2).withSeed(4));
        r.writeTo(dir);
        JsonNode root = new ObjectMapper().readTree(dir.resolve("weights.json").toFile());
        assertEquals("splice.weigh.weights/2", root.path("schema").asText());
        assertEquals(List.of("huber_k", "mad_constant", "irls_tolerance", "irls_max_iterations", "bisquare_c",
                "burn_in_position", "zero_margin_rel", "zero_margin_ns", "zero_reference"), names(root.path("model")));
        assertEquals(List.of("runs", "funnel", "batch_balance", "order_balance", "bad_rows", "interrupts"),
                names(root.path("campaign")));
        assertEquals(List.of("rate_per_ms", "mean_event_us", "median_event_us", "events", "exposure_ms",
                "contexts_above_background"), names(root.path("campaign").path("interrupts")));
        assertEquals(List.of("replicates", "valid_replicates", "seed", "method", "level", "critical_value",
                "alpha_per_estimate", "effective_estimates", "bootstrap_max_t", "critical_value_mc_se",
                "quantile_probability_mc_se", "critical_value_99", "width_ratio_median", "width_ratio_p95",
                "convergence"), names(root.path("bootstrap")));
        assertEquals("wild-cluster-webb-t-calibrated", root.path("bootstrap").path("method").asText());
        JsonNode c = root.path("contexts").get(0);
        assertEquals(List.of("context", "baseline", "estimate_ns", "ci_low_ns", "ci_high_ns", "weight_ns",
                "zero_cost_equivalent", "publication", "quality", "reasons", "ess", "ess_kish",
                "autocorrelation_time", "pairs_kept", "pairs_removed", "pairs_removed_burn_in", "contrast_ns", "se_ns",
                "asymptotic_se_ns", "width_ratio_vs_99", "reference_chain", "effects", "irls",
                "interrupt_overhead_ns", "outliers", "interrupts", "variance_exponent", "lack_of_fit",
                "heterogeneity", "plugin_off", "cross_clock"), names(c));
        assertEquals(List.of("order", "drift", "window"), names(c.path("effects")));
        assertEquals(List.of("rejected"), names(c.path("outliers")));
        assertEquals(List.of("events", "expected", "p_excess", "detectable_share"), names(c.path("interrupts")));
        assertEquals(List.of("batch", "deviation_ns", "se_ns"), names(c.path("lack_of_fit").get(0)));
        Weights read = Weights.read(dir.resolve("weights.json"));
        assertEquals(FitOptions.BISQUARE_C, read.model().bisquareC());
        assertEquals(CampaignData.BURN_IN_POSITION, read.model().burnInPosition());
        assertEquals(r.zeroReference(), read.model().zeroReference());
        assertTrue(read.contexts().get(0).pairsRemovedBurnIn() > 0);
    }

    private static List<String> names(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void readingIsLenientButNeedsTheSchemaAndEveryContextsKey() throws IOException {
        Path file = dir.resolve("weights.json");
        Files.writeString(file, "{\"schema\": \"splice.weigh.weights/7\", \"contexts\": [{\"context\": \"div.x\", "
                + "\"weight_ns\": 4.5, \"quality\": \"high\", \"publication\": \"estimate\"}]}");
        ContextWeight w = Weights.read(file).contexts().get(0);
        assertEquals(4.5, w.weightNs());
        assertTrue(w.highQuality());
        assertTrue(Double.isNaN(w.ciLowNs()));
        assertEquals(ContextWeight.Publication.ESTIMATE, w.publication());
        Files.writeString(file, "{\"schema\": \"splice.weigh.other/1\"}");
        assertThrows(BadInputException.class, () -> Weights.read(file));
        Files.writeString(file, "{\"schema\": \"splice.weigh.weights/1\", \"contexts\": [{\"estimate_ns\": 1}]}");
        BadInputException e = assertThrows(BadInputException.class, () -> Weights.read(file));
        assertTrue(e.getMessage().endsWith("contexts[0] has no 'context'"), e.getMessage());
    }
}
