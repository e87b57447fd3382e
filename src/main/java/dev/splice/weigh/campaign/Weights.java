package dev.splice.weigh.campaign;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code weights.json}, what {@code splice weigh model} publishes (docs/formats.md, "weights.json"):
 * the model's settings, the campaign's funnel and balance, the bootstrap, quality counts and every
 * context's weight. {@link #toJson()} and {@link #read(Path)} are each other's inverse on the files
 * Splice writes; {@link #toCsv()} gives {@code weights.csv}. Deterministic: numbers are written in
 * their shortest round-trip form, non-finite ones as null.
 *
 * @param mode where the campaign's probes ran, {@code user} or {@code system} (the manifest's mode); null
 *     for a weights.json written before the field existed
 * @param qemuCpu the QEMU CPU model the campaign ran on (the manifest's {@code qemu_cpu}, as {@code -cpu} takes it),
 *     {@link Campaign#DEFAULT_CPU} for QEMU's default CPU; null when unknown (a weights.json written before the
 *     field existed, or a campaign without a manifest)
 * @param model the model's settings
 * @param campaign what the campaign gave the model
 * @param bootstrap the bootstrap and the simultaneous band
 * @param quality how many contexts passed every gate
 * @param contexts every context, in context order
 */
public record Weights(String mode, String qemuCpu, ModelSettings model, CampaignSummary campaign, BootstrapSummary bootstrap,
        QualitySummary quality, List<ContextWeight> contexts) {
    /** The schema name and version written. */
    public static final String SCHEMA = "splice.weigh.weights/2";

    /**
     * Copies the contexts.
     *
     * @param mode see {@link #mode()}
     * @param qemuCpu see {@link #qemuCpu()}
     * @param model see {@link #model()}
     * @param campaign see {@link #campaign()}
     * @param bootstrap see {@link #bootstrap()}
     * @param quality see {@link #quality()}
     * @param contexts see {@link #contexts()}
     */
    public Weights {
        contexts = List.copyOf(contexts);
    }

    /**
     * The model's settings.
     *
     * @param huberK Huber tuning constant (of the starting fit)
     * @param madConstant divisor turning the median absolute residual into a scale
     * @param irlsTolerance stopping threshold of the IRLS residual change
     * @param irlsMaxIterations IRLS iteration limit
     * @param bisquareC Tukey's bisquare rejection point (of the final fit)
     * @param burnInPosition pairs before this position in their run are discarded as the burn-in
     * @param zeroMarginRel the practical-zero margin as a share of {@code zeroReference}'s cost
     * @param zeroMarginNs the practical-zero margin: intervals inside +-this are zero-cost-equivalent
     * @param zeroReference the cheapest context whose band lies above zero, or null when there is none
     */
    public record ModelSettings(double huberK, double madConstant, double irlsTolerance, int irlsMaxIterations,
            double bisquareC, double burnInPosition, double zeroMarginRel, double zeroMarginNs,
            String zeroReference) {}

    /**
     * What the campaign gave the model.
     *
     * @param runs run names, in order
     * @param funnel pair counts in filter order ({@code bad_rows_skipped}, {@code pairs_read}, ...)
     * @param batchBalance kept pairs per batch size, by batch size
     * @param orderBalance kept pairs per order ({@code AB}, {@code BA})
     * @param badRows the skipped rows as {@code FILE:LINE: REASON}
     * @param interrupts the campaign's background of interrupt events
     */
    public record CampaignSummary(List<String> runs, Map<String, Long> funnel, Map<Integer, Long> batchBalance,
            Map<String, Long> orderBalance, List<String> badRows, InterruptBackground interrupts) {
        /**
         * Copies every collection, keeping their order.
         *
         * @param runs see {@link #runs()}
         * @param funnel see {@link #funnel()}
         * @param batchBalance see {@link #batchBalance()}
         * @param orderBalance see {@link #orderBalance()}
         * @param badRows see {@link #badRows()}
         * @param interrupts see {@link #interrupts()}
         */
        public CampaignSummary {
            runs = List.copyOf(runs);
            funnel = copy(funnel);
            batchBalance = copy(batchBalance);
            orderBalance = copy(orderBalance);
            badRows = List.copyOf(badRows);
        }
    }

    /**
     * The campaign's background of interrupt events (docs/weigh-model.md).
     *
     * @param ratePerMs events per ms of CPU time (NaN without sensitive exposure)
     * @param meanEventUs mean time of one event
     * @param medianEventUs median excess time of a hit pair (NaN without events)
     * @param events the sensitive pairs with an event behind the background
     * @param exposureMs the sensitive exposure behind the rate
     * @param contextsAboveBackground contexts left out as above the background
     */
    public record InterruptBackground(double ratePerMs, double meanEventUs, double medianEventUs, int events,
            double exposureMs, List<String> contextsAboveBackground) {
        /**
         * Copies the contexts, keeping their order.
         *
         * @param ratePerMs see {@link #ratePerMs()}
         * @param meanEventUs see {@link #meanEventUs()}
         * @param medianEventUs see {@link #medianEventUs()}
         * @param events see {@link #events()}
         * @param exposureMs see {@link #exposureMs()}
         * @param contextsAboveBackground see {@link #contextsAboveBackground()}
         */
        public InterruptBackground {
            contextsAboveBackground = List.copyOf(contextsAboveBackground);
        }
    }

    /**
     * The wild cluster bootstrap and the simultaneous band.
     *
     * @param replicates replicates asked for (B)
     * @param validReplicates replicates that gave every context a value
     * @param seed the bootstrap seed
     * @param method the bootstrap and band method ({@code wild-cluster-webb-t-calibrated})
     * @param level the band's simultaneous coverage
     * @param criticalValue the band's critical value c
     * @param alphaPerEstimate the calibrated per-estimate level
     * @param effectiveEstimates the number of independent estimates the family is worth
     * @param bootstrapMaxT the bootstrap's critical value of the max of |t|
     * @param criticalValueMcSe Monte Carlo standard error of c
     * @param quantileProbabilityMcSe Monte Carlo standard error of c's coverage probability
     * @param criticalValue99 c from the first 99 replicates
     * @param widthRatioMedian median of the interval width ratio B/99 over the contexts
     * @param widthRatioP95 95th percentile of that ratio
     * @param convergence c after growing numbers of replicates
     */
    public record BootstrapSummary(int replicates, int validReplicates, long seed, String method, double level,
            double criticalValue, double alphaPerEstimate, double effectiveEstimates, double bootstrapMaxT,
            double criticalValueMcSe, double quantileProbabilityMcSe, double criticalValue99,
            double widthRatioMedian, double widthRatioP95, List<Convergence> convergence) {
        /**
         * Copies the convergence rows.
         *
         * @param replicates see {@link #replicates()}
         * @param validReplicates see {@link #validReplicates()}
         * @param seed see {@link #seed()}
         * @param method see {@link #method()}
         * @param level see {@link #level()}
         * @param criticalValue see {@link #criticalValue()}
         * @param alphaPerEstimate see {@link #alphaPerEstimate()}
         * @param effectiveEstimates see {@link #effectiveEstimates()}
         * @param bootstrapMaxT see {@link #bootstrapMaxT()}
         * @param criticalValueMcSe see {@link #criticalValueMcSe()}
         * @param quantileProbabilityMcSe see {@link #quantileProbabilityMcSe()}
         * @param criticalValue99 see {@link #criticalValue99()}
         * @param widthRatioMedian see {@link #widthRatioMedian()}
         * @param widthRatioP95 see {@link #widthRatioP95()}
         * @param convergence see {@link #convergence()}
         */
        public BootstrapSummary {
            convergence = List.copyOf(convergence);
        }
    }

    /**
     * The critical value after some replicates.
     *
     * @param replicates replicates used
     * @param criticalValue the critical value they give
     */
    public record Convergence(int replicates, double criticalValue) {}

    /**
     * Quality counts.
     *
     * @param high contexts that passed every gate
     * @param low contexts that failed at least one
     * @param gateFailures contexts failing each gate, by gate name
     */
    public record QualitySummary(long high, long low, Map<String, Integer> gateFailures) {
        /**
         * Copies the failures, keeping their order.
         *
         * @param high see {@link #high()}
         * @param low see {@link #low()}
         * @param gateFailures see {@link #gateFailures()}
         */
        public QualitySummary {
            gateFailures = copy(gateFailures);
        }
    }

    private static <K, V> Map<K, V> copy(Map<K, V> m) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }

    /**
     * The {@code weights.json} text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        return WeightsJson.json(this);
    }

    /**
     * The {@code weights.csv} text: one row per context, {@code context,baseline,estimate_ns,
     * ci_low_ns,ci_high_ns,weight_ns,zero_cost_equivalent,quality,reasons,ess,pairs_kept,pairs_removed}
     * (reasons joined by {@code ;}, empty fields for null).
     *
     * @return CSV with a header line
     */
    public String toCsv() {
        return WeightsJson.csv(this);
    }

    /**
     * Writes {@code weights.json} and {@code weights.csv}, each through a temporary file and a rename.
     *
     * @param dir the output directory
     */
    public void writeTo(Path dir) {
        AtomicFiles.write(dir.resolve("weights.json"), toJson());
        AtomicFiles.write(dir.resolve("weights.csv"), toCsv());
    }

    /**
     * Reads a {@code weights.json}. Only the schema and every context's {@code context} are required;
     * other missing or mistyped values read as {@code NaN}, null, 0, false or empty.
     *
     * @param file the file
     * @return what it holds
     * @throws BadInputException when the file is not JSON, names no {@code splice.weigh.weights/N}
     *     schema, or has a context without its {@code context} key
     */
    public static Weights read(Path file) {
        return WeightsJson.read(file);
    }
}
