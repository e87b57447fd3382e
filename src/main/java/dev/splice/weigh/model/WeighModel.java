package dev.splice.weigh.model;

import dev.splice.base.BadInputException;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.ContextWeight.Publication;
import dev.splice.weigh.campaign.Reason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;

/** Turns a campaign into published weights: fits, references, band, interrupts, zero rule, gates. */
public final class WeighModel {
    /**
     * The practical zero is this share of the cheapest context whose band lies above zero: a context
     * whose whole band lies within +-margin costs less than a tenth of the cheapest real instruction.
     */
    static final double ZERO_MARGIN_REL = 0.10;

    private WeighModel() {}

    /**
     * Fits every context of a campaign and decides what to publish (docs/weigh-model.md).
     *
     * @param campaign the campaign ({@link Campaign#read})
     * @param o replicates, seed, threads, fit settings and progress
     * @return the result: {@link ModelResult#weights()} and {@link ModelResult#writeTo}
     * @throws BadInputException when the replicates asked for are outside {@link ModelOptions#MIN_REPLICATES}
     *     to {@link ModelOptions#MAX_REPLICATES}, or their table for this campaign would exceed
     *     {@link ModelOptions#MAX_TABLE_BYTES}
     */
    public static ModelResult run(Campaign campaign, ModelOptions o) {
        if (o.replicates() < ModelOptions.MIN_REPLICATES || o.replicates() > ModelOptions.MAX_REPLICATES) {
            throw new BadInputException("--bootstrap must be from " + ModelOptions.MIN_REPLICATES + " to "
                    + ModelOptions.MAX_REPLICATES + ", got " + o.replicates());
        }
        CampaignData data = CampaignData.of(campaign);
        List<ContextData> contexts = data.contexts();
        int k = contexts.size();
        long tableBytes = 8L * o.replicates() * k;
        if (tableBytes > ModelOptions.MAX_TABLE_BYTES) {
            throw new BadInputException("--bootstrap " + o.replicates() + " with " + k + " contexts needs a "
                    + (tableBytes >> 20) + " MiB replicate table; at most " + (ModelOptions.MAX_TABLE_BYTES >> 20)
                    + " MiB: use at most " + ModelOptions.MAX_TABLE_BYTES / (8L * k) + " replicates");
        }
        List<ContextAnalysis> analyses = analyse(data, o);
        List<ReferenceGraph.Resolution> res = ReferenceGraph.resolve(contexts, campaign.expectedContexts());
        int runs = data.runs().size();

        double[] contrast = new double[k];
        double[] estimate = new double[k];
        boolean[] include = new boolean[k];
        double[][] phi = new double[k][];
        for (int j = 0; j < k; j++) {
            contrast[j] = analyses.get(j).fit().theta();
        }
        for (int j = 0; j < k; j++) {
            ReferenceGraph.Resolution r = res.get(j);
            estimate[j] = r.identifiable() ? sum(contrast, r.chain()) : Double.NaN;
            phi[j] = r.identifiable() ? chainValues(analyses, r.chain(), runs) : null;
            include[j] = Double.isFinite(estimate[j]) && phi[j] != null;
            if (phi[j] == null) {
                phi[j] = new double[runs];
                java.util.Arrays.fill(phi[j], Double.NaN);
            }
        }
        SimultaneousBand band = SimultaneousBand.compute(phi, include, runs, o.replicates(), o.seed(), o.progress());
        double[] low = new double[k];
        double[] high = new double[k];
        double cheapest = Double.POSITIVE_INFINITY;
        String cheapestContext = null;
        ContextTable table = ContextTable.load();
        for (int j = 0; j < k; j++) {
            double half = band.criticalOf()[j] * band.se()[j];
            include[j] &= Double.isFinite(half);
            low[j] = include[j] ? estimate[j] - half : Double.NaN;
            high[j] = include[j] ? estimate[j] + half : Double.NaN;
            if (include[j] && low[j] > 0 && estimate[j] < cheapest && !measuresTcgOptimizer(table, contexts.get(j).context())) {
                cheapest = estimate[j];
                cheapestContext = contexts.get(j).context();
            }
        }
        double zeroMargin = cheapestContext == null ? 0 : ZERO_MARGIN_REL * cheapest;
        Interrupts.Background background = Interrupts.background(analyses);

        List<ContextResult> results = new ArrayList<>();
        Map<String, Integer> failures = new TreeMap<>();
        for (int j = 0; j < k; j++) {
            ContextAnalysis a = analyses.get(j);
            ReferenceGraph.Resolution r = res.get(j);
            List<Reason> reasons = new ArrayList<>();
            if (!r.identifiable()) {
                reasons.add(new Reason(QualityGates.UNIDENTIFIABLE, QualityGates.numbers("error", r.error())));
            } else if (a.fit().ok() && !include[j]) {
                reasons.add(new Reason(QualityGates.UNIDENTIFIABLE,
                        QualityGates.numbers("error", "a context of the reference chain could not be fitted")));
            }
            Interrupts.ContextEvents events = Interrupts.compare(a, background);
            double half = include[j] ? high[j] - estimate[j] : Double.NaN;
            reasons.addAll(QualityGates.evaluate(a, new QualityGates.Inputs(estimate[j], half, events, zeroMargin)));
            Double weight = null;
            boolean zero = include[j] && zeroMargin > 0 && low[j] >= -zeroMargin && high[j] <= zeroMargin;
            Publication publication;
            if (!include[j]) {
                publication = Publication.UNIDENTIFIABLE;
            } else if (high[j] < 0) {
                publication = Publication.SIGNIFICANTLY_NEGATIVE_NOT_PUBLISHED;
            } else if (estimate[j] < 0) {
                // The band contains 0 here: a zero-equivalent negative estimate may be published as 0.
                weight = zero ? 0.0 : null;
                publication = zero ? Publication.ZERO_COST_EQUIVALENT : Publication.NEGATIVE_NOT_PUBLISHED;
            } else {
                weight = estimate[j];
                publication = zero ? Publication.ZERO_COST_EQUIVALENT : Publication.ESTIMATE;
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
            double[] betaSe = new double[3];
            for (int q = 0; q < 3; q++) {
                betaSe[q] = a.fit().ok() ? QualityGates.se(a, q) : Double.NaN;
            }
            results.add(new ContextResult(a, r, chain, contrast[j], estimate[j], band.se()[j], low[j], high[j], weight,
                    zero, publication, betaSe, band.widthRatio()[j], events,
                    include[j] ? Interrupts.overhead(background, estimate[j]) : Double.NaN, reasons));
        }
        return new ModelResult(data.runs(), results, band, o, funnel(campaign, contexts), batchBalance(contexts),
                orderBalance(contexts), campaign.badRows(), failures, background, zeroMargin, cheapestContext,
                campaign.mode(), campaign.qemuCpu());
    }

    /**
     * Whether the context table marks the context as measuring TCG's optimizer (dead-code elimination
     * or a folded chain) rather than an instruction: such a context is no reference for the practical
     * zero. On the formal campaign of session 8 the folded {@code c.andi.dependency} (7e-4 ns) was the
     * cheapest context with its band above zero and set the margin to 7e-5 ns, a thousandth of a real
     * instruction's cost. A context the table does not know (another harness's) counts as real.
     */
    private static boolean measuresTcgOptimizer(ContextTable table, String context) {
        return table.context(context).map(Context::measuresTcgOptimizer).orElse(false);
    }

    /** The contexts' analyses on {@code o.threads()} workers, in context order whatever the scheduling. */
    private static List<ContextAnalysis> analyse(CampaignData data, ModelOptions o) {
        ForkJoinPool pool = new ForkJoinPool(Math.max(1, o.threads()));
        try {
            return pool.submit(() -> data.contexts().parallelStream()
                    .map(c -> ContextAnalysis.analyse(c, data.off(c.context()), data.runs(), o.fit()))
                    .toList()).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("model interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("model failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdown();
        }
    }

    private static double sum(double[] theta, List<Integer> chain) {
        double s = 0;
        for (int q : chain) {
            s += theta[q];
        }
        return s;
    }

    /** Per-run sums of the chain's pseudo-values (NaN for a run some link lacks); null if a link has none. */
    private static double[] chainValues(List<ContextAnalysis> analyses, List<Integer> chain, int runs) {
        double[] out = new double[runs];
        for (int q : chain) {
            double[] p = analyses.get(q).runTheta();
            if (p == null) {
                return null;
            }
            for (int r = 0; r < runs; r++) {
                out[r] += p[r];
            }
        }
        return out;
    }

    private static Map<String, Long> funnel(Campaign c, List<ContextData> contexts) {
        Map<String, Long> f = new LinkedHashMap<>();
        long raw = contexts.stream().mapToLong(ContextData::pairsRaw).sum();
        long removed = contexts.stream().mapToLong(ContextData::pairsRemovedTranslations).sum();
        long burnIn = contexts.stream().mapToLong(ContextData::pairsRemovedBurnIn).sum();
        f.put("bad_rows_skipped", (long) c.badRows().size());
        f.put("pairs_read", raw);
        f.put("removed_translations", removed);
        f.put("removed_burn_in", burnIn);
        f.put("pairs_kept", raw - removed - burnIn);
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
