package dev.splice.weigh.model;

import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.ContextWeight.Publication;
import dev.splice.weigh.campaign.Reason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Turns a campaign into published weights: fits, bootstrap, references, band, zero rule, gates. */
public final class WeighModel {
    /** The practical zero: an interval inside +-this is published as a physical zero. */
    static final double ZERO_BAND_NS = 0.15;

    private WeighModel() {}

    /**
     * Fits every context of a campaign and decides what to publish (docs/weigh-model.md).
     *
     * @param campaign the campaign ({@link Campaign#read})
     * @param o replicates, seed, threads, fit settings and progress
     * @return the result: {@link ModelResult#weights()} and {@link ModelResult#writeTo}
     * @throws BadInputException when fewer than {@link ModelOptions#MIN_REPLICATES} replicates are asked for
     */
    public static ModelResult run(Campaign campaign, ModelOptions o) {
        if (o.replicates() < ModelOptions.MIN_REPLICATES) {
            throw new BadInputException("--bootstrap must be at least " + ModelOptions.MIN_REPLICATES + ", got "
                    + o.replicates());
        }
        CampaignData data = CampaignData.of(campaign);
        List<ContextData> contexts = data.contexts();
        int k = contexts.size();
        // Contexts are independent; the parallel stream keeps their order, so the result is deterministic.
        List<ContextAnalysis> analyses = contexts.parallelStream()
                .map(c -> ContextAnalysis.analyse(c, data.off(c.context()), data.runs(), o.fit()))
                .toList();
        List<ReferenceGraph.Resolution> res = ReferenceGraph.resolve(contexts, campaign.expectedContexts());
        Bootstrap.Replicates reps = Bootstrap.run(data, contexts, o.replicates(), o.seed(), o.fit(), o.threads(),
                o.progress());

        double[] contrast = new double[k];
        double[] estimate = new double[k];
        boolean[] include = new boolean[k];
        for (int j = 0; j < k; j++) {
            contrast[j] = analyses.get(j).fit().theta();
        }
        for (int j = 0; j < k; j++) {
            ReferenceGraph.Resolution r = res.get(j);
            estimate[j] = r.identifiable() ? sum(contrast, r.chain()) : Double.NaN;
            include[j] = Double.isFinite(estimate[j]);
        }
        double[][] absReps = new double[reps.count()][k];
        for (int b = 0; b < reps.count(); b++) {
            for (int j = 0; j < k; j++) {
                absReps[b][j] = include[j] ? sum(reps.theta()[b], res.get(j).chain()) : Double.NaN;
            }
        }
        SimultaneousBand band = SimultaneousBand.compute(estimate, absReps, include);
        double[] contrastSe = columnSd(reps, k);

        List<ContextResult> results = new ArrayList<>();
        Map<String, Integer> failures = new TreeMap<>();
        for (int j = 0; j < k; j++) {
            ContextAnalysis a = analyses.get(j);
            ReferenceGraph.Resolution r = res.get(j);
            double[] betaSe = betaSd(reps, j);
            double half = band.critical() * band.se()[j];
            double low = estimate[j] - half;
            double high = estimate[j] + half;
            List<Reason> reasons = new ArrayList<>();
            if (!r.identifiable()) {
                reasons.add(new Reason(QualityGates.UNIDENTIFIABLE, QualityGates.numbers("error", r.error())));
            } else if (a.fit().ok() && !include[j]) {
                reasons.add(new Reason(QualityGates.UNIDENTIFIABLE,
                        QualityGates.numbers("error", "a context of the reference chain could not be fitted")));
            }
            reasons.addAll(QualityGates.evaluate(a, betaSe, contrastSe[j], estimate[j], include[j] ? half : Double.NaN));
            Double weight = null;
            boolean zero = false;
            Publication publication;
            if (!include[j] || !Double.isFinite(low)) {
                publication = Publication.UNIDENTIFIABLE;
            } else if (low >= -ZERO_BAND_NS && high <= ZERO_BAND_NS) {
                zero = true;
                weight = 0.0;
                publication = Publication.ZERO_COST_EQUIVALENT;
            } else if (high < 0) {
                publication = Publication.SIGNIFICANTLY_NEGATIVE_NOT_PUBLISHED;
            } else if (estimate[j] < 0) {
                publication = Publication.NEGATIVE_NOT_PUBLISHED;
            } else {
                weight = estimate[j];
                publication = Publication.ESTIMATE;
            }
            for (Reason reason : reasons) {
                failures.merge(reason.gate(), 1, Integer::sum);
            }
            List<String> chain = new ArrayList<>();
            for (int q : r.chain()) {
                chain.add(contexts.get(q).context());
            }
            if (r.identifiable()) {
                chain.add(r.zeroReference());
            }
            results.add(new ContextResult(a, r, chain, contrast[j], estimate[j], band.se()[j], low, high, weight, zero,
                    publication, betaSe, band.widthRatio()[j], reasons));
        }
        return new ModelResult(data.runs(), results, band, o, funnel(campaign, contexts), batchBalance(contexts),
                orderBalance(contexts), campaign.badRows(), failures);
    }

    private static double sum(double[] theta, List<Integer> chain) {
        double s = 0;
        for (int q : chain) {
            s += theta[q];
        }
        return s;
    }

    private static double[] columnSd(Bootstrap.Replicates reps, int k) {
        double[] out = new double[k];
        for (int j = 0; j < k; j++) {
            final int jj = j;
            out[j] = sd(reps.count(), b -> reps.theta()[b][jj]);
        }
        return out;
    }

    private static double[] betaSd(Bootstrap.Replicates reps, int j) {
        double[] out = new double[3];
        for (int q = 0; q < 3; q++) {
            final int qq = q;
            out[q] = sd(reps.count(), b -> reps.beta()[b][j][qq]);
        }
        return out;
    }

    /** SD over the finite values. */
    private static double sd(int n, java.util.function.IntToDoubleFunction v) {
        double sum = 0;
        int m = 0;
        for (int b = 0; b < n; b++) {
            double x = v.applyAsDouble(b);
            if (Double.isFinite(x)) {
                sum += x;
                m++;
            }
        }
        if (m < 2) {
            return Double.NaN;
        }
        double mean = sum / m;
        double ss = 0;
        for (int b = 0; b < n; b++) {
            double x = v.applyAsDouble(b);
            if (Double.isFinite(x)) {
                ss += (x - mean) * (x - mean);
            }
        }
        return Math.sqrt(ss / (m - 1));
    }

    private static Map<String, Long> funnel(Campaign c, List<ContextData> contexts) {
        Map<String, Long> f = new LinkedHashMap<>();
        long raw = contexts.stream().mapToLong(ContextData::pairsRaw).sum();
        long removed = contexts.stream().mapToLong(ContextData::pairsRemovedTranslations).sum();
        f.put("bad_rows_skipped", (long) c.badRows().size());
        f.put("pairs_read", raw);
        f.put("removed_translations", removed);
        f.put("pairs_kept", raw - removed);
        f.put("plugin_off_pairs_read", (long) c.offPairs().size());
        return f;
    }

    private static Map<Integer, Long> batchBalance(List<ContextData> contexts) {
        Map<Integer, Long> m = new TreeMap<>();
        for (ContextData c : contexts) {
            for (int l = 0; l < c.batches().length; l++) {
                m.merge(c.batches()[l], (long) c.batchCounts()[l], Long::sum);
            }
        }
        return m;
    }

    private static Map<String, Long> orderBalance(List<ContextData> contexts) {
        Map<String, Long> m = new LinkedHashMap<>();
        long ab = contexts.stream().mapToLong(ContextData::abCount).sum();
        long all = contexts.stream().mapToLong(ContextData::size).sum();
        m.put("AB", ab);
        m.put("BA", all - ab);
        return m;
    }
}
