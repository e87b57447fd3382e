package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON and CSV forms of {@link Weights}. */
final class WeightsJson {
    private WeightsJson() {}

    static String json(Weights w) {
        ObjectNode root = Json.object();
        root.put("schema", Weights.SCHEMA);
        if (w.mode() != null) {
            root.put("mode", w.mode());
        }
        if (w.qemuCpu() != null) {
            root.put("qemu_cpu", w.qemuCpu());
        }
        Weights.ModelSettings s = w.model();
        ObjectNode model = root.putObject("model");
        Json.num(model, "huber_k", s.huberK());
        Json.num(model, "mad_constant", s.madConstant());
        Json.num(model, "irls_tolerance", s.irlsTolerance());
        model.put("irls_max_iterations", s.irlsMaxIterations());
        Json.num(model, "bisquare_c", s.bisquareC());
        Json.num(model, "burn_in_position", s.burnInPosition());
        Json.num(model, "zero_margin_rel", s.zeroMarginRel());
        Json.num(model, "zero_margin_ns", s.zeroMarginNs());
        if (s.zeroReference() != null) {
            model.put("zero_reference", s.zeroReference());
        }
        Weights.CampaignSummary c = w.campaign();
        ObjectNode campaign = root.putObject("campaign");
        Json.putTexts(campaign, "runs", c.runs());
        ObjectNode funnel = campaign.putObject("funnel");
        c.funnel().forEach(funnel::put);
        ObjectNode batches = campaign.putObject("batch_balance");
        c.batchBalance().forEach((k, v) -> batches.put(Integer.toString(k), v));
        ObjectNode orders = campaign.putObject("order_balance");
        c.orderBalance().forEach(orders::put);
        Json.putTexts(campaign, "bad_rows", c.badRows());
        Weights.InterruptBackground bg = c.interrupts();
        ObjectNode interrupts = campaign.putObject("interrupts");
        Json.num(interrupts, "rate_per_ms", bg.ratePerMs());
        Json.num(interrupts, "mean_event_us", bg.meanEventUs());
        Json.num(interrupts, "median_event_us", bg.medianEventUs());
        interrupts.put("events", bg.events());
        Json.num(interrupts, "exposure_ms", bg.exposureMs());
        Json.putTexts(interrupts, "contexts_above_background", bg.contextsAboveBackground());
        Weights.BootstrapSummary b = w.bootstrap();
        ObjectNode boot = root.putObject("bootstrap");
        boot.put("replicates", b.replicates());
        boot.put("valid_replicates", b.validReplicates());
        boot.put("seed", b.seed());
        boot.put("method", b.method());
        Json.num(boot, "level", b.level());
        Json.num(boot, "critical_value", b.criticalValue());
        Json.num(boot, "alpha_per_estimate", b.alphaPerEstimate());
        Json.num(boot, "effective_estimates", b.effectiveEstimates());
        Json.num(boot, "bootstrap_max_t", b.bootstrapMaxT());
        Json.num(boot, "critical_value_mc_se", b.criticalValueMcSe());
        Json.num(boot, "quantile_probability_mc_se", b.quantileProbabilityMcSe());
        Json.num(boot, "critical_value_99", b.criticalValue99());
        Json.num(boot, "width_ratio_median", b.widthRatioMedian());
        Json.num(boot, "width_ratio_p95", b.widthRatioP95());
        ArrayNode conv = boot.putArray("convergence");
        for (Weights.Convergence row : b.convergence()) {
            ObjectNode o = conv.addObject();
            o.put("replicates", row.replicates());
            Json.num(o, "critical_value", row.criticalValue());
        }
        ObjectNode quality = root.putObject("quality");
        quality.put("high", w.quality().high());
        quality.put("low", w.quality().low());
        ObjectNode failures = quality.putObject("gate_failures");
        w.quality().gateFailures().forEach(failures::put);
        ArrayNode contexts = root.putArray("contexts");
        for (ContextWeight x : w.contexts()) {
            contexts.add(context(x));
        }
        return Json.file(root);
    }

    private static ObjectNode context(ContextWeight c) {
        ObjectNode o = Json.object();
        o.put("context", c.context());
        if (c.key() != null) {
            o.put("key", c.key());
        }
        o.put("baseline", c.baseline());
        Json.num(o, "estimate_ns", c.estimateNs());
        Json.num(o, "ci_low_ns", c.ciLowNs());
        Json.num(o, "ci_high_ns", c.ciHighNs());
        if (c.weightNs() != null) {
            Json.num(o, "weight_ns", c.weightNs());
        } else {
            o.putNull("weight_ns");
        }
        o.put("zero_cost_equivalent", c.zeroCostEquivalent());
        o.put("publication", c.publication() == null ? null : c.publication().label());
        o.put("quality", c.highQuality() ? "high" : "low");
        ArrayNode reasons = o.putArray("reasons");
        for (Reason r : c.reasons()) {
            ObjectNode ro = reasons.addObject();
            ro.put("gate", r.gate());
            for (Map.Entry<String, Object> e : r.numbers().entrySet()) {
                Object v = e.getValue();
                if (v instanceof Double dv) {
                    Json.num(ro, e.getKey(), dv);
                } else if (v instanceof Integer iv) {
                    ro.put(e.getKey(), iv);
                } else {
                    ro.put(e.getKey(), String.valueOf(v));
                }
            }
        }
        Json.num(o, "ess", c.ess());
        Json.num(o, "ess_kish", c.essKish());
        Json.num(o, "autocorrelation_time", c.autocorrelationTime());
        o.put("pairs_kept", c.pairsKept());
        o.put("pairs_removed", c.pairsRemoved());
        o.put("pairs_removed_burn_in", c.pairsRemovedBurnIn());
        Json.num(o, "contrast_ns", c.contrastNs());
        Json.num(o, "se_ns", c.seNs());
        Json.num(o, "asymptotic_se_ns", c.asymptoticSeNs());
        Json.num(o, "width_ratio_vs_99", c.widthRatioVs99());
        Json.putTexts(o, "reference_chain", c.referenceChain());
        if (c.unidentifiable() != null) {
            o.put("unidentifiable", c.unidentifiable());
        }
        ObjectNode effects = o.putObject("effects");
        c.effects().forEach((name, f) -> {
            ObjectNode e = effects.putObject(name);
            Json.num(e, "coefficient_ns", f.coefficientNs());
            Json.num(e, "se_ns", f.seNs());
            e.put("estimable", f.estimable());
        });
        ObjectNode irls = o.putObject("irls");
        irls.put("converged", c.irls().converged());
        irls.put("iterations", c.irls().iterations());
        Json.num(irls, "scale_ns", c.irls().scaleNs());
        if (c.irls().failure() != null) {
            irls.put("failure", c.irls().failure());
        }
        Json.num(o, "interrupt_overhead_ns", c.interruptOverheadNs());
        o.putObject("outliers").put("rejected", c.outliers().rejected());
        ObjectNode ev = o.putObject("interrupts");
        ev.put("events", c.interrupts().events());
        Json.num(ev, "expected", c.interrupts().expected());
        Json.num(ev, "p_excess", c.interrupts().pExcess());
        Json.num(ev, "detectable_share", c.interrupts().detectableShare());
        Json.num(o, "variance_exponent", c.varianceExponent());
        ArrayNode lof = o.putArray("lack_of_fit");
        for (ContextWeight.LackOfFit l : c.lackOfFit()) {
            ObjectNode lo = lof.addObject();
            lo.put("batch", l.batch());
            Json.num(lo, "deviation_ns", l.deviationNs());
            Json.num(lo, "se_ns", l.seNs());
        }
        ObjectNode het = o.putObject("heterogeneity");
        Json.num(het, "q", c.heterogeneity().q());
        Json.num(het, "tau2", c.heterogeneity().tau2());
        Json.num(het, "i2", c.heterogeneity().i2());
        het.put("runs", c.heterogeneity().runs());
        check(o.putObject("plugin_off"), c.pluginOff());
        check(o.putObject("cross_clock"), c.crossClock());
        return o;
    }

    private static void check(ObjectNode o, ContextWeight.Check c) {
        o.put("pairs", c.pairs());
        Json.num(o, "estimate_ns", c.estimateNs());
        Json.num(o, "se_ns", c.seNs());
        if (c.unavailable() != null) {
            o.put("unavailable", c.unavailable());
        }
    }

    static String csv(Weights w) {
        StringBuilder sb = new StringBuilder(
                "context,baseline,estimate_ns,ci_low_ns,ci_high_ns,weight_ns,zero_cost_equivalent,quality,reasons,ess,pairs_kept,pairs_removed\n");
        for (ContextWeight c : w.contexts()) {
            sb.append(field(c.context())).append(',').append(field(c.baseline())).append(',')
                    .append(num(c.estimateNs())).append(',').append(num(c.ciLowNs())).append(',')
                    .append(num(c.ciHighNs())).append(',')
                    .append(c.weightNs() == null ? "" : num(c.weightNs())).append(',')
                    .append(c.zeroCostEquivalent()).append(',').append(c.highQuality() ? "high" : "low").append(',')
                    .append(field(String.join(";", c.reasons().stream().map(Reason::gate).toList()))).append(',')
                    .append(num(c.ess())).append(',').append(c.pairsKept()).append(',')
                    .append(c.pairsRemoved()).append('\n');
        }
        return sb.toString();
    }

    /** RFC 4180 quoting. */
    private static String field(String s) {
        if (s == null) {
            return "";
        }
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    /** Shortest round-trip number, empty for a non-finite one. */
    private static String num(double v) {
        return Double.isFinite(v) ? Double.toString(v) : "";
    }

    static Weights read(Path file) {
        JsonNode root = Json.read(file);
        if (!root.path("schema").asText().startsWith("splice.weigh.weights/")) {
            throw new BadInputException(file + ": not a weights.json (schema splice.weigh.weights/N expected)");
        }
        JsonNode m = root.path("model");
        Weights.ModelSettings model = new Weights.ModelSettings(Json.num(m, "huber_k"), Json.num(m, "mad_constant"),
                Json.num(m, "irls_tolerance"), m.path("irls_max_iterations").asInt(), Json.num(m, "bisquare_c"),
                Json.num(m, "burn_in_position"), Json.num(m, "zero_margin_rel"), Json.num(m, "zero_margin_ns"),
                Json.text(m, "zero_reference"));
        JsonNode c = root.path("campaign");
        Map<Integer, Long> batches = new LinkedHashMap<>();
        c.path("batch_balance").fields().forEachRemaining(e -> {
            try {
                batches.put(Integer.parseInt(e.getKey()), e.getValue().asLong());
            } catch (NumberFormatException ignored) {
                // not a batch size: nothing to keep
            }
        });
        Weights.CampaignSummary campaign = new Weights.CampaignSummary(Json.texts(c.path("runs")),
                longs(c.path("funnel")), batches, longs(c.path("order_balance")), Json.texts(c.path("bad_rows")),
                interrupts(c.path("interrupts")));
        JsonNode b = root.path("bootstrap");
        List<Weights.Convergence> convergence = new ArrayList<>();
        for (JsonNode row : b.path("convergence")) {
            convergence.add(new Weights.Convergence(row.path("replicates").asInt(), Json.num(row, "critical_value")));
        }
        Weights.BootstrapSummary bootstrap = new Weights.BootstrapSummary(b.path("replicates").asInt(),
                b.path("valid_replicates").asInt(), b.path("seed").asLong(), b.path("method").asText(),
                Json.num(b, "level"), Json.num(b, "critical_value"), Json.num(b, "alpha_per_estimate"),
                Json.num(b, "effective_estimates"), Json.num(b, "bootstrap_max_t"), Json.num(b, "critical_value_mc_se"),
                Json.num(b, "quantile_probability_mc_se"), Json.num(b, "critical_value_99"),
                Json.num(b, "width_ratio_median"), Json.num(b, "width_ratio_p95"), convergence);
        JsonNode q = root.path("quality");
        Map<String, Integer> failures = new LinkedHashMap<>();
        q.path("gate_failures").fields().forEachRemaining(e -> failures.put(e.getKey(), e.getValue().asInt()));
        Weights.QualitySummary quality = new Weights.QualitySummary(q.path("high").asLong(), q.path("low").asLong(),
                failures);
        List<ContextWeight> contexts = new ArrayList<>();
        int i = 0;
        for (JsonNode x : root.path("contexts")) {
            if (!x.path("context").isTextual()) {
                throw new BadInputException(file + ": contexts[" + i + "] has no 'context'");
            }
            contexts.add(context(x));
            i++;
        }
        JsonNode mode = root.path("mode");
        return new Weights(mode.isTextual() ? mode.asText() : null, Json.text(root, "qemu_cpu"), model, campaign, bootstrap, quality, contexts);
    }

    private static Weights.InterruptBackground interrupts(JsonNode o) {
        return new Weights.InterruptBackground(Json.num(o, "rate_per_ms"), Json.num(o, "mean_event_us"),
                Json.num(o, "median_event_us"), o.path("events").asInt(), Json.num(o, "exposure_ms"),
                Json.texts(o.path("contexts_above_background")));
    }

    private static Map<String, Long> longs(JsonNode o) {
        Map<String, Long> out = new LinkedHashMap<>();
        o.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asLong()));
        return out;
    }

    private static ContextWeight context(JsonNode c) {
        List<Reason> reasons = new ArrayList<>();
        for (JsonNode r : c.path("reasons")) {
            Map<String, Object> numbers = new LinkedHashMap<>();
            r.fields().forEachRemaining(e -> {
                if (!e.getKey().equals("gate")) {
                    numbers.put(e.getKey(), value(e.getValue()));
                }
            });
            reasons.add(new Reason(r.path("gate").asText(), numbers));
        }
        Map<String, ContextWeight.Effect> effects = new LinkedHashMap<>();
        c.path("effects").fields().forEachRemaining(e -> effects.put(e.getKey(), new ContextWeight.Effect(
                Json.num(e.getValue(), "coefficient_ns"), Json.num(e.getValue(), "se_ns"),
                e.getValue().path("estimable").asBoolean())));
        JsonNode irls = c.path("irls");
        JsonNode ev = c.path("interrupts");
        JsonNode het = c.path("heterogeneity");
        List<ContextWeight.LackOfFit> lackOfFit = new ArrayList<>();
        for (JsonNode l : c.path("lack_of_fit")) {
            lackOfFit.add(new ContextWeight.LackOfFit(l.path("batch").asInt(), Json.num(l, "deviation_ns"),
                    Json.num(l, "se_ns")));
        }
        return new ContextWeight(c.get("context").asText(), Json.text(c, "key"), c.path("baseline").asText(),
                Json.num(c, "estimate_ns"), Json.num(c, "ci_low_ns"), Json.num(c, "ci_high_ns"),
                c.path("weight_ns").isNumber() ? c.get("weight_ns").asDouble() : null,
                c.path("zero_cost_equivalent").asBoolean(),
                ContextWeight.Publication.of(c.path("publication").asText("")),
                "high".equals(c.path("quality").asText()), reasons, Json.num(c, "ess"), Json.num(c, "ess_kish"),
                Json.num(c, "autocorrelation_time"), c.path("pairs_kept").asInt(), c.path("pairs_removed").asInt(),
                c.path("pairs_removed_burn_in").asInt(),
                Json.num(c, "contrast_ns"), Json.num(c, "se_ns"), Json.num(c, "asymptotic_se_ns"),
                Json.num(c, "width_ratio_vs_99"), Json.texts(c.path("reference_chain")), Json.text(c, "unidentifiable"),
                effects,
                new ContextWeight.Irls(irls.path("converged").asBoolean(), irls.path("iterations").asInt(),
                        Json.num(irls, "scale_ns"), Json.text(irls, "failure")),
                Json.num(c, "interrupt_overhead_ns"), new ContextWeight.Outliers(c.path("outliers").path("rejected").asInt()),
                new ContextWeight.Interrupts(ev.path("events").asInt(), Json.num(ev, "expected"),
                        Json.num(ev, "p_excess"), Json.num(ev, "detectable_share")),
                Json.num(c, "variance_exponent"), lackOfFit,
                new ContextWeight.Heterogeneity(Json.num(het, "q"), Json.num(het, "tau2"), Json.num(het, "i2"),
                        het.path("runs").asInt()),
                check(c.path("plugin_off")), check(c.path("cross_clock")));
    }

    private static ContextWeight.Check check(JsonNode o) {
        return new ContextWeight.Check(o.path("pairs").asInt(), Json.num(o, "estimate_ns"), Json.num(o, "se_ns"),
                Json.text(o, "unavailable"));
    }

    /** A reason's value as the writer takes it: Integer, Double (null is NaN) or String. */
    private static Object value(JsonNode v) {
        if (v.isIntegralNumber() && v.canConvertToInt()) {
            return v.asInt();
        }
        if (v.isNumber()) {
            return v.asDouble();
        }
        if (v.isNull()) {
            return Double.NaN;
        }
        return v.asText();
    }
}
