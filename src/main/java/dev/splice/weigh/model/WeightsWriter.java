package dev.splice.weigh.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Map;

/** weights.json and weights.csv (documented in docs/formats.md). */
public final class WeightsWriter {
    public static final String SCHEMA = "splice.weigh.weights/2";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private WeightsWriter() {}

    public static String json(ModelResult r) {
        ObjectNode root = F.objectNode();
        root.put("schema", SCHEMA);
        ObjectNode model = root.putObject("model");
        FitOptions fo = r.options().fit();
        model.put("huber_k", fo.k());
        model.put("mad_constant", fo.scaleConstant());
        model.put("irls_tolerance", fo.tolerance());
        model.put("irls_max_iterations", fo.maxIterations());
        model.put("bisquare_c", FitOptions.BISQUARE_C);
        model.put("burn_in_position", CampaignData.BURN_IN_POSITION);
        model.put("zero_margin_rel", WeighModel.ZERO_MARGIN_REL);
        num(model, "zero_margin_ns", r.zeroMarginNs());
        if (r.zeroReference() != null) {
            model.put("zero_reference", r.zeroReference());
        }
        ObjectNode campaign = root.putObject("campaign");
        ArrayNode runs = campaign.putArray("runs");
        r.runs().forEach(runs::add);
        ObjectNode funnel = campaign.putObject("funnel");
        r.funnel().forEach(funnel::put);
        ObjectNode batches = campaign.putObject("batch_balance");
        r.batchBalance().forEach((k, v) -> batches.put(Integer.toString(k), v));
        ObjectNode orders = campaign.putObject("order_balance");
        r.orderBalance().forEach(orders::put);
        ArrayNode bad = campaign.putArray("bad_rows");
        r.badRows().forEach(b -> bad.add(b.toString()));
        ObjectNode interrupts = campaign.putObject("interrupts");
        Interrupts.Background bg = r.interrupts();
        num(interrupts, "rate_per_ms", bg.ratePerNs() * 1e6);
        num(interrupts, "mean_event_us", bg.meanSize() / 1e3);
        num(interrupts, "median_event_us", bg.medianSize() / 1e3);
        interrupts.put("events", bg.events());
        num(interrupts, "exposure_ms", bg.exposureNs() / 1e6);
        ArrayNode excluded = interrupts.putArray("contexts_above_background");
        bg.excluded().forEach(excluded::add);
        SimultaneousBand band = r.band();
        ObjectNode boot = root.putObject("bootstrap");
        boot.put("replicates", r.options().replicates());
        boot.put("valid_replicates", band.valid());
        boot.put("seed", r.options().seed());
        boot.put("method", "wild-cluster-webb-t-calibrated");
        boot.put("level", SimultaneousBand.LEVEL);
        num(boot, "critical_value", band.critical());
        num(boot, "alpha_per_estimate", band.alpha());
        num(boot, "effective_estimates", band.effectiveEstimates());
        num(boot, "bootstrap_max_t", band.bootstrapCritical());
        num(boot, "critical_value_mc_se", band.criticalMcSe());
        num(boot, "quantile_probability_mc_se", band.probabilityMcSe());
        num(boot, "critical_value_99", band.critical99());
        double[] ratios = java.util.Arrays.stream(band.widthRatio()).filter(Double::isFinite).sorted().toArray();
        num(boot, "width_ratio_median", quantile(ratios, 0.5));
        num(boot, "width_ratio_p95", quantile(ratios, 0.95));
        ArrayNode conv = boot.putArray("convergence");
        for (double[] row : band.convergence()) {
            ObjectNode o = conv.addObject();
            o.put("replicates", (int) row[0]);
            num(o, "critical_value", row[1]);
        }
        ObjectNode quality = root.putObject("quality");
        quality.put("high", r.highQuality());
        quality.put("low", r.contexts().size() - r.highQuality());
        ObjectNode failures = quality.putObject("gate_failures");
        r.gateFailures().forEach(failures::put);
        ArrayNode contexts = root.putArray("contexts");
        for (ContextResult c : r.contexts()) {
            contexts.add(context(c));
        }
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode context(ContextResult c) {
        ContextAnalysis a = c.analysis();
        ContextData d = a.data();
        ObjectNode o = F.objectNode();
        o.put("context", d.context());
        if (d.key() != null) {
            o.put("key", d.key());
        }
        o.put("baseline", d.baseline());
        num(o, "estimate_ns", c.estimate());
        num(o, "ci_low_ns", c.ciLow());
        num(o, "ci_high_ns", c.ciHigh());
        if (c.weight() != null) {
            o.put("weight_ns", c.weight());
        } else {
            o.putNull("weight_ns");
        }
        o.put("zero_cost_equivalent", c.zeroCostEquivalent());
        o.put("publication", c.publication());
        o.put("quality", c.highQuality() ? "high" : "low");
        ArrayNode reasons = o.putArray("reasons");
        for (Reason r : c.reasons()) {
            ObjectNode ro = reasons.addObject();
            ro.put("gate", r.gate());
            for (Map.Entry<String, Object> e : r.numbers().entrySet()) {
                Object v = e.getValue();
                if (v instanceof Double dv) {
                    num(ro, e.getKey(), dv);
                } else if (v instanceof Integer iv) {
                    ro.put(e.getKey(), iv);
                } else {
                    ro.put(e.getKey(), String.valueOf(v));
                }
            }
        }
        num(o, "ess", a.ess());
        num(o, "ess_kish", a.essKish());
        num(o, "autocorrelation_time", a.tau());
        o.put("pairs_kept", d.size());
        o.put("pairs_removed", d.pairsRemovedTranslations());
        o.put("pairs_removed_burn_in", d.pairsRemovedBurnIn());
        num(o, "contrast_ns", c.contrast());
        num(o, "se_ns", c.se());
        num(o, "asymptotic_se_ns", a.asymptoticSe());
        num(o, "width_ratio_vs_99", c.widthRatio());
        ArrayNode chain = o.putArray("reference_chain");
        c.referenceChain().forEach(chain::add);
        if (!c.resolution().identifiable()) {
            o.put("unidentifiable", c.resolution().error());
        }
        ObjectNode effects = o.putObject("effects");
        HuberFit f = a.fit();
        for (int j = 0; j < 3; j++) {
            ObjectNode e = effects.putObject(ContextData.COVARIATE_NAMES[j]);
            num(e, "coefficient_ns", f.beta()[j]);
            num(e, "se_ns", c.betaSe()[j]);
            e.put("estimable", f.active()[j]);
        }
        ObjectNode irls = o.putObject("irls");
        irls.put("converged", f.converged());
        irls.put("iterations", f.iterations());
        num(irls, "scale_ns", f.scale());
        if (f.failure() != null) {
            irls.put("failure", f.failure());
        }
        num(o, "interrupt_overhead_ns", c.interruptOverheadNs());
        ObjectNode out = o.putObject("outliers");
        out.put("rejected", a.rejected());
        ObjectNode ev = o.putObject("interrupts");
        ev.put("events", c.events().observed());
        num(ev, "expected", c.events().expected());
        num(ev, "p_excess", c.events().pExcess());
        num(ev, "detectable_share", c.events().detectableShare());
        num(o, "variance_exponent", a.varianceExponent());
        ArrayNode lof = o.putArray("lack_of_fit");
        for (ContextAnalysis.LackOfFit l : a.lackOfFit()) {
            ObjectNode lo = lof.addObject();
            lo.put("batch", l.batch());
            num(lo, "deviation_ns", l.deviation());
            num(lo, "se_ns", l.se());
        }
        ObjectNode het = o.putObject("heterogeneity");
        num(het, "q", a.dlQ());
        num(het, "tau2", a.dlTau2());
        num(het, "i2", a.dlI2());
        het.put("runs", a.runFits().size());
        check(o.putObject("plugin_off"), a.pluginOff());
        check(o.putObject("cross_clock"), a.crossClock());
        return o;
    }

    private static void check(ObjectNode o, ContextAnalysis.Check c) {
        o.put("pairs", c.pairs());
        num(o, "estimate_ns", c.theta());
        num(o, "se_ns", c.se());
        if (c.failure() != null) {
            o.put("unavailable", c.failure());
        }
    }

    static void num(ObjectNode o, String field, double v) {
        if (Double.isFinite(v)) {
            o.put(field, v);
        } else {
            o.putNull(field);
        }
    }

    static double quantile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double pos = p * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    public static String csv(ModelResult r) {
        StringBuilder sb = new StringBuilder(
                "context,baseline,estimate_ns,ci_low_ns,ci_high_ns,weight_ns,zero_cost_equivalent,quality,reasons,ess,pairs_kept,pairs_removed\n");
        for (ContextResult c : r.contexts()) {
            sb.append(Csv.field(c.context())).append(',').append(Csv.field(c.analysis().data().baseline())).append(',')
                    .append(Csv.num(c.estimate())).append(',').append(Csv.num(c.ciLow())).append(',')
                    .append(Csv.num(c.ciHigh())).append(',')
                    .append(c.weight() == null ? "" : Csv.num(c.weight())).append(',')
                    .append(c.zeroCostEquivalent()).append(',').append(c.highQuality() ? "high" : "low").append(',')
                    .append(Csv.field(String.join(";", c.reasons().stream().map(Reason::gate).toList()))).append(',')
                    .append(Csv.num(c.analysis().ess())).append(',').append(c.analysis().data().size()).append(',')
                    .append(c.analysis().data().pairsRemovedTranslations()).append('\n');
        }
        return sb.toString();
    }

    /** CSV helpers: RFC 4180 quoting, shortest round-trip numbers, empty for NaN. */
    static final class Csv {
        private Csv() {}

        static String field(String s) {
            if (s == null) {
                return "";
            }
            if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
                return "\"" + s.replace("\"", "\"\"") + "\"";
            }
            return s;
        }

        static String num(double v) {
            return Double.isFinite(v) ? Double.toString(v) : "";
        }

        static String fixed(double v, int digits) {
            return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + digits + "f", v) : "n/a";
        }
    }
}
