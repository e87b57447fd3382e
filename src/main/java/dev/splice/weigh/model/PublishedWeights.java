package dev.splice.weigh.model;

import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Weights;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A model result as the weights it publishes ({@code weights.json}, docs/formats.md). */
final class PublishedWeights {
    /** The bootstrap and band method named in {@code weights.json}. */
    static final String METHOD = "wild-cluster-webb-t-calibrated";

    private PublishedWeights() {}

    static Weights of(ModelResult r) {
        FitOptions fo = r.options().fit();
        Weights.ModelSettings model = new Weights.ModelSettings(fo.k(), fo.scaleConstant(), fo.tolerance(),
                fo.maxIterations(), FitOptions.BISQUARE_C, CampaignData.BURN_IN_POSITION, WeighModel.ZERO_MARGIN_REL,
                r.zeroMarginNs(), r.zeroReference());
        Map<Integer, Long> batches = new LinkedHashMap<>(r.batchBalance());
        Weights.CampaignSummary campaign = new Weights.CampaignSummary(r.runs(), r.funnel(), batches,
                r.orderBalance(), r.badRows().stream().map(Object::toString).toList(), interrupts(r.interrupts()));
        SimultaneousBand band = r.band();
        double[] ratios = java.util.Arrays.stream(band.widthRatio()).filter(Double::isFinite).sorted().toArray();
        List<Weights.Convergence> convergence = new ArrayList<>();
        for (double[] row : band.convergence()) {
            convergence.add(new Weights.Convergence((int) row[0], row[1]));
        }
        Weights.BootstrapSummary bootstrap = new Weights.BootstrapSummary(r.options().replicates(), band.valid(),
                r.options().seed(), METHOD, SimultaneousBand.LEVEL, band.critical(), band.alpha(),
                band.effectiveEstimates(), band.bootstrapCritical(), band.criticalMcSe(), band.probabilityMcSe(), band.critical99(), quantile(ratios, 0.5),
                quantile(ratios, 0.95), convergence);
        Weights.QualitySummary quality = new Weights.QualitySummary(r.highQuality(),
                r.contexts().size() - r.highQuality(), r.gateFailures());
        return new Weights(r.mode(), r.qemuCpu(), model, campaign, bootstrap, quality,
                r.contexts().stream().map(PublishedWeights::context).toList());
    }

    private static Weights.InterruptBackground interrupts(Interrupts.Background bg) {
        return new Weights.InterruptBackground(bg.ratePerNs() * 1e6, bg.meanSize() / 1e3, bg.medianSize() / 1e3,
                bg.events(), bg.exposureNs() / 1e6, bg.excluded());
    }

    private static ContextWeight context(ContextResult c) {
        ContextAnalysis a = c.analysis();
        ContextData d = a.data();
        HuberFit f = a.fit();
        Map<String, ContextWeight.Effect> effects = new LinkedHashMap<>();
        for (int j = 0; j < 3; j++) {
            effects.put(ContextData.COVARIATE_NAMES[j], new ContextWeight.Effect(f.beta()[j], c.betaSe()[j], f.active()[j]));
        }
        return new ContextWeight(d.context(), d.key(), d.baseline(), c.estimate(), c.ciLow(), c.ciHigh(), c.weight(),
                c.zeroCostEquivalent(), c.publication(), c.highQuality(), c.reasons(), a.ess(), a.essKish(), a.tau(),
                d.size(), d.pairsRemovedTranslations(), d.pairsRemovedBurnIn(), c.contrast(), c.se(), a.asymptoticSe(), c.widthRatio(),
                c.referenceChain(), c.resolution().identifiable() ? null : c.resolution().error(), effects,
                new ContextWeight.Irls(f.converged(), f.iterations(), f.scale(), f.failure()),
                c.interruptOverheadNs(), new ContextWeight.Outliers(a.rejected()),
                new ContextWeight.Interrupts(c.events().observed(), c.events().expected(), c.events().pExcess(),
                        c.events().detectableShare()),
                a.varianceExponent(), lackOfFit(a.lackOfFit()),
                new ContextWeight.Heterogeneity(a.dlQ(), a.dlTau2(), a.dlI2(), a.runFits().size()),
                check(a.pluginOff()), check(a.crossClock()));
    }

    private static List<ContextWeight.LackOfFit> lackOfFit(List<ContextAnalysis.LackOfFit> rows) {
        return rows.stream().map(l -> new ContextWeight.LackOfFit(l.batch(), l.deviation(), l.se())).toList();
    }

    private static ContextWeight.Check check(ContextAnalysis.Check c) {
        return new ContextWeight.Check(c.pairs(), c.theta(), c.se(), c.failure());
    }

    /** Linear interpolation between order statistics of sorted values; NaN when there are none. */
    static double quantile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double pos = p * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    /** A number with {@code digits} decimals for the reports, {@code n/a} when not finite. */
    static String fixed(double v, int digits) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + digits + "f", v) : "n/a";
    }
}
