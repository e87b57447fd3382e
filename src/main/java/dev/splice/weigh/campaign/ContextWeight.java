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
 * @param estimateNs absolute cost: the contrast plus the reference chain (unconstrained)
 * @param ciLowNs simultaneous 95% interval (whole family of contexts), lower end
 * @param ciHighNs simultaneous 95% interval, upper end
 * @param weightNs the published weight: the estimate, 0 when zero-cost-equivalent, null when not publishable
 * @param zeroCostEquivalent whether the whole interval lies within the zero band
 * @param publication what was published, or null when the file names something else
 * @param highQuality whether every quality gate passed
 * @param reasons the failed gates
 * @param ess effective sample size
 * @param essKish Kish's effective sample size of the weights
 * @param autocorrelationTime integrated autocorrelation time
 * @param pairsKept pairs used
 * @param pairsRemoved pairs removed for translations
 * @param contrastNs contrast against the own baseline
 * @param seNs bootstrap standard deviation of the contrast
 * @param asymptoticSeNs Huber asymptotic standard error
 * @param widthRatioVs99 interval width with all replicates over the width with the first 99
 * @param referenceChain contexts whose contrasts add up to the estimate, ending with the zero reference
 * @param unidentifiable why the reference graph cannot identify the cost, or null
 * @param effects the nuisance effects by name ({@code order}, {@code drift}, {@code batch})
 * @param irls the fit's iterations
 * @param outliers severe outliers
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
        double contrastNs,
        double seNs,
        double asymptoticSeNs,
        double widthRatioVs99,
        List<String> referenceChain,
        String unidentifiable,
        Map<String, Effect> effects,
        Irls irls,
        Outliers outliers,
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
     * @param contrastNs see {@link #contrastNs()}
     * @param seNs see {@link #seNs()}
     * @param asymptoticSeNs see {@link #asymptoticSeNs()}
     * @param widthRatioVs99 see {@link #widthRatioVs99()}
     * @param referenceChain see {@link #referenceChain()}
     * @param unidentifiable see {@link #unidentifiable()}
     * @param effects see {@link #effects()}
     * @param irls see {@link #irls()}
     * @param outliers see {@link #outliers()}
     * @param heterogeneity see {@link #heterogeneity()}
     * @param pluginOff see {@link #pluginOff()}
     * @param crossClock see {@link #crossClock()}
     */
    public ContextWeight {
        reasons = List.copyOf(reasons);
        referenceChain = List.copyOf(referenceChain);
        effects = Collections.unmodifiableMap(new LinkedHashMap<>(effects));
    }

    /** What a context publishes. */
    public enum Publication {
        /** The estimate is the weight. */
        ESTIMATE("estimate"),
        /** The interval lies within the zero band: the weight is 0. */
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
     * The Huber IRLS fit.
     *
     * @param converged whether it converged
     * @param iterations iterations run
     * @param scaleNs the final scale
     * @param failure why the fit failed, or null
     */
    public record Irls(boolean converged, int iterations, double scaleNs, String failure) {}

    /**
     * Severe outliers of the fit.
     *
     * @param severe their number
     * @param wilsonUpper the Wilson upper bound of their share
     */
    public record Outliers(int severe, double wilsonUpper) {}

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
