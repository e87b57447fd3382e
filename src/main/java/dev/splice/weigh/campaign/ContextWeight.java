package dev.splice.weigh.campaign;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One context of {@code weights.json}: its published weight, interval, quality and diagnostics
 * (docs/formats.md, "weights.json"; the method in docs/weigh-model.md). Times are ns per target
 * instruction; a number the file gives as null is {@code NaN}.
 *
 * @param context the context key
 * @param key the catalog semantic key of the context when its pairs name one, else null
 * @param baseline the baseline's key (several joined by {@code |})
 * @param estimateNs absolute marginal cost (beta of {@code d = beta + alpha/N}): the contrast plus the
 *     reference chain (unconstrained)
 * @param ciLowNs simultaneous 95% interval (whole family of contexts), lower end
 * @param ciHighNs simultaneous 95% interval, upper end
 * @param weightNs the published weight: the estimate; 0 only for a zero-cost-equivalent negative estimate
 *     (band containing 0); null when not publishable
 * @param zeroCostEquivalent whether the whole interval lies within the practical-zero margin
 * @param publication what was published, or null when the file names something else
 * @param highQuality whether every quality gate passed
 * @param reasons the failed gates
 * @param ess effective sample size
 * @param essKish Kish's effective sample size of the weights
 * @param autocorrelationTime integrated autocorrelation time
 * @param pairsKept pairs used
 * @param pairsRemoved pairs removed for translations (or missing times)
 * @param pairsRemovedBurnIn pairs of the burn-in, removed
 * @param contrastNs contrast against the own baseline
 * @param seNs standard error of the contrast from the run pseudo-values
 * @param asymptoticSeNs within-run asymptotic standard error
 * @param widthRatioVs99 interval width with all replicates over the width with the first 99
 * @param referenceChain contexts whose contrasts add up to the estimate, ending with the zero reference
 * @param unidentifiable why the reference graph cannot identify the cost, or null
 * @param effects the nuisance effects by name ({@code order}, {@code drift}, {@code window})
 * @param irls the final (bisquare) fit's iterations
 * @param interruptOverheadNs expected interrupt time per instruction of this cost on the campaign's host
 * @param outliers pairs the fit rejected
 * @param interrupts the context's interrupt events against the campaign's background
 * @param varianceExponent gamma of the variance function {@code s_N ~ N^gamma}
 * @param lackOfFit the deviations of the interior batch sizes from the line in 1/N
 * @param heterogeneity DerSimonian-Laird heterogeneity across runs
 * @param pluginOff the same model on the plugin-off pairs (guest clock)
 * @param crossClock the same model on the guest clock of the plugin-on pairs
 */
public record ContextWeight(
        String context,
        String key,
        String baseline,
        double estimateNs,
        double ciLowNs,
        double ciHighNs,
        Double weightNs,
        boolean zeroCostEquivalent,
        Publication publication,
        boolean highQuality,
        List<Reason> reasons,
        double ess,
        double essKish,
        double autocorrelationTime,
        int pairsKept,
        int pairsRemoved,
        int pairsRemovedBurnIn,
        double contrastNs,
        double seNs,
        double asymptoticSeNs,
        double widthRatioVs99,
        List<String> referenceChain,
        String unidentifiable,
        Map<String, Effect> effects,
        Irls irls,
        double interruptOverheadNs,
        Outliers outliers,
        Interrupts interrupts,
        double varianceExponent,
        List<LackOfFit> lackOfFit,
        Heterogeneity heterogeneity,
        Check pluginOff,
        Check crossClock) {

    /**
     * Copies every collection, keeping their order.
     *
     * @param context see {@link #context()}
     * @param key see {@link #key()}
     * @param baseline see {@link #baseline()}
     * @param estimateNs see {@link #estimateNs()}
     * @param ciLowNs see {@link #ciLowNs()}
     * @param ciHighNs see {@link #ciHighNs()}
     * @param weightNs see {@link #weightNs()}
     * @param zeroCostEquivalent see {@link #zeroCostEquivalent()}
     * @param publication see {@link #publication()}
     * @param highQuality see {@link #highQuality()}
     * @param reasons see {@link #reasons()}
     * @param ess see {@link #ess()}
     * @param essKish see {@link #essKish()}
     * @param autocorrelationTime see {@link #autocorrelationTime()}
     * @param pairsKept see {@link #pairsKept()}
     * @param pairsRemoved see {@link #pairsRemoved()}
     * @param pairsRemovedBurnIn see {@link #pairsRemovedBurnIn()}
     * @param contrastNs see {@link #contrastNs()}
     * @param seNs see {@link #seNs()}
     * @param asymptoticSeNs see {@link #asymptoticSeNs()}
     * @param widthRatioVs99 see {@link #widthRatioVs99()}
     * @param referenceChain see {@link #referenceChain()}
     * @param unidentifiable see {@link #unidentifiable()}
     * @param effects see {@link #effects()}
     * @param irls see {@link #irls()}
     * @param interruptOverheadNs see {@link #interruptOverheadNs()}
     * @param outliers see {@link #outliers()}
     * @param interrupts see {@link #interrupts()}
     * @param varianceExponent see {@link #varianceExponent()}
     * @param lackOfFit see {@link #lackOfFit()}
     * @param heterogeneity see {@link #heterogeneity()}
     * @param pluginOff see {@link #pluginOff()}
     * @param crossClock see {@link #crossClock()}
     */
    public ContextWeight {
        reasons = List.copyOf(reasons);
        referenceChain = List.copyOf(referenceChain);
        lackOfFit = List.copyOf(lackOfFit);
        effects = Collections.unmodifiableMap(new LinkedHashMap<>(effects));
    }

    /** What a context publishes. */
    public enum Publication {
        /** The estimate is the weight. */
        ESTIMATE("estimate"),
        /**
         * The interval lies within the practical-zero margin: the weight is the estimate, or 0 for a
         * negative estimate.
         */
        ZERO_COST_EQUIVALENT("zero-cost-equivalent"),
        /** A negative estimate whose interval reaches above 0: no weight. */
        NEGATIVE_NOT_PUBLISHED("negative-not-published"),
        /** The whole interval lies below 0: no weight. */
        SIGNIFICANTLY_NEGATIVE_NOT_PUBLISHED("significantly-negative-not-published"),
        /** The reference graph cannot identify the cost: no weight. */
        UNIDENTIFIABLE("unidentifiable");

        private final String label;

        Publication(String label) {
            this.label = label;
        }

        /**
         * The name in {@code weights.json}.
         *
         * @return e.g. {@code zero-cost-equivalent}
         */
        public String label() {
            return label;
        }

        /**
         * The publication a file names.
         *
         * @param label a name as {@link #label()} gives it
         * @return the publication, or null when the name is none of them
         */
        public static Publication of(String label) {
            for (Publication p : values()) {
                if (p.label.equals(label)) {
                    return p;
                }
            }
            return null;
        }
    }

    /**
     * A nuisance effect of the regression.
     *
     * @param coefficientNs the fitted coefficient
     * @param seNs its bootstrap standard deviation
     * @param estimable whether the design could estimate it
     */
    public record Effect(double coefficientNs, double seNs, boolean estimable) {}

    /**
     * The final (bisquare) IRLS fit.
     *
     * @param converged whether it converged
     * @param iterations iterations run
     * @param scaleNs the final scale
     * @param failure why the fit failed, or null
     */
    public record Irls(boolean converged, int iterations, double scaleNs, String failure) {}

    /**
     * Outliers of the fit.
     *
     * @param rejected pairs the bisquare gave no weight
     */
    public record Outliers(int rejected) {}

    /**
     * A context's interrupt events against the campaign's background.
     *
     * @param events events detected
     * @param expected events the background predicts for the context's pairs
     * @param pExcess {@code P(X >= events)} for a Poisson variable with mean {@code expected}
     * @param detectableShare the share of the context's expected interrupts (of any size) that the
     *     bisquare rejects; the rest may stay in the estimate
     */
    public record Interrupts(int events, double expected, double pExcess, double detectableShare) {}

    /**
     * The deviation of one interior batch size from the fitted line in 1/N.
     *
     * @param batch the batch size N
     * @param deviationNs its deviation from the line
     * @param seNs the deviation's standard error
     */
    public record LackOfFit(int batch, double deviationNs, double seNs) {}

    /**
     * DerSimonian-Laird heterogeneity of the per-run fits.
     *
     * @param q Cochran's Q
     * @param tau2 between-run variance
     * @param i2 share of variance between runs
     * @param runs runs fitted
     */
    public record Heterogeneity(double q, double tau2, double i2, int runs) {}

    /**
     * A check of the estimate on another clock.
     *
     * @param pairs pairs the check used
     * @param estimateNs the check's estimate
     * @param seNs its standard error
     * @param unavailable why the check is unavailable, or null
     */
    public record Check(int pairs, double estimateNs, double seNs, String unavailable) {}
}
