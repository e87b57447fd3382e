package dev.splice.weigh.model;

import dev.splice.weigh.campaign.Reason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gates a context must pass to be high-confidence. Every threshold is a named constant here and
 * documented in docs/weigh-model.md. "Equivalent to zero" is a one-sided 95% bound test (TOST):
 * {@code |effect| + 1.645 * se <= margin}.
 */
final class QualityGates {
    static final String SEVERE_OUTLIERS = "too-many-severe-outliers";
    static final String IRLS_NOT_CONVERGED = "irls-not-converged";
    static final String RUN_IRLS_NOT_CONVERGED = "per-run-irls-not-converged";
    static final String HETEROGENEITY = "cross-run-heterogeneity-high";
    static final String ORDER = "order-effect-not-equivalent";
    static final String DRIFT = "drift-effect-not-equivalent";
    static final String BATCH = "batch-size-nonlinearity";
    static final String OFF_DIVERGENT = "plugin-off-check-divergent";
    static final String OFF_UNAVAILABLE = "plugin-off-check-unavailable";
    static final String CLOCK_DIVERGENT = "cross-clock-check-divergent";
    static final String CLOCK_UNAVAILABLE = "cross-clock-check-unavailable";
    static final String CI_TOO_WIDE = "simultaneous-ci-too-wide";
    static final String ESS_LOW = "ess-below-minimum";
    static final String UNIDENTIFIABLE = "unidentifiable";
    static final String FIT_FAILED = "fit-failed";

    /** Largest acceptable one-sided 95% Wilson upper bound of the severe-outlier share. */
    static final double SEVERE_SHARE_MAX = 0.10;
    /** Heterogeneity fails when I^2 exceeds this ... */
    static final double HETEROGENEITY_I2_MAX = 0.75;
    /** ... and tau exceeds max(this absolute, relative * |contrast|). */
    static final double HETEROGENEITY_TAU_ABS_NS = 0.05;
    static final double HETEROGENEITY_TAU_REL = 0.10;
    /** Equivalence margin of the order, drift and batch effects: max(abs, rel * |contrast|). */
    static final double EFFECT_MARGIN_ABS_NS = 0.05;
    static final double EFFECT_MARGIN_REL = 0.10;
    /** Equivalence margin of the plugin-off and cross-clock estimates against the main one. */
    static final double CHECK_MARGIN_ABS_NS = 0.15;
    static final double CHECK_MARGIN_REL = 0.20;
    /** The simultaneous half-width may be at most max(abs, rel * |estimate|). */
    static final double CI_HALF_WIDTH_ABS_NS = 0.15;
    static final double CI_HALF_WIDTH_REL = 0.20;
    /** Minimum effective sample size. */
    static final double ESS_MIN = 20;
    /** One-sided 95% normal quantile of the equivalence tests. */
    static final double Z = 1.6448536269514722;

    private QualityGates() {}

    /**
     * @param betaSe bootstrap SDs of the order, drift and batch coefficients
     * @param contrastSe bootstrap SD of the contrast (for the auxiliary checks)
     */
    static List<Reason> evaluate(ContextAnalysis a, double[] betaSe, double contrastSe, double estimate,
            double halfWidth) {
        List<Reason> out = new ArrayList<>();
        HuberFit f = a.fit();
        if (!f.ok()) {
            out.add(new Reason(FIT_FAILED, numbers("why", f.failure(), "pairs", a.data().size())));
            return out;
        }
        double theta = f.theta();
        if (a.severeUpper() > SEVERE_SHARE_MAX) {
            out.add(new Reason(SEVERE_OUTLIERS, numbers("severe", a.severeOutliers(), "pairs", a.data().size(),
                    "share", a.severeOutliers() / (double) a.data().size(), "wilson_upper", a.severeUpper(),
                    "max", SEVERE_SHARE_MAX)));
        }
        if (!f.converged()) {
            out.add(new Reason(IRLS_NOT_CONVERGED, numbers("iterations", f.iterations())));
        }
        List<String> bad = new ArrayList<>();
        for (ContextAnalysis.RunFit r : a.runFits()) {
            if (!r.converged()) {
                bad.add(r.run() + (r.failure() != null ? " (" + r.failure() + ")" : " (" + r.iterations() + " iterations)"));
            }
        }
        if (!bad.isEmpty()) {
            out.add(new Reason(RUN_IRLS_NOT_CONVERGED, numbers("runs", bad.size(), "of", a.runFits().size(),
                    "which", String.join("; ", bad))));
        }
        double tauLimit = Math.max(HETEROGENEITY_TAU_ABS_NS, HETEROGENEITY_TAU_REL * Math.abs(theta));
        if (a.dlI2() > HETEROGENEITY_I2_MAX && Math.sqrt(a.dlTau2()) > tauLimit) {
            out.add(new Reason(HETEROGENEITY, numbers("i2", a.dlI2(), "tau_ns", Math.sqrt(a.dlTau2()),
                    "q", a.dlQ(), "i2_max", HETEROGENEITY_I2_MAX, "tau_max_ns", tauLimit)));
        }
        double margin = Math.max(EFFECT_MARGIN_ABS_NS, EFFECT_MARGIN_REL * Math.abs(theta));
        equivalence(out, ORDER, f.beta()[0], betaSe[0], margin, "AB minus BA");
        equivalence(out, DRIFT, f.beta()[1], betaSe[1], margin, "end minus start of a run");
        int[] batches = a.data().batches();
        double range = batches.length > 1 ? Math.log(batches[batches.length - 1] / (double) batches[0]) : 0;
        equivalence(out, BATCH, f.beta()[2] * range, betaSe[2] * range, margin, "largest minus smallest batch");
        check(out, a.pluginOff(), OFF_DIVERGENT, OFF_UNAVAILABLE, theta, contrastSe);
        check(out, a.crossClock(), CLOCK_DIVERGENT, CLOCK_UNAVAILABLE, theta, contrastSe);
        double widthLimit = Math.max(CI_HALF_WIDTH_ABS_NS, CI_HALF_WIDTH_REL * Math.abs(estimate));
        if (!(halfWidth <= widthLimit)) {
            out.add(new Reason(CI_TOO_WIDE, numbers("half_width_ns", halfWidth, "max_ns", widthLimit)));
        }
        if (!(a.ess() >= ESS_MIN)) {
            out.add(new Reason(ESS_LOW, numbers("ess", a.ess(), "ess_kish", a.essKish(), "tau", a.tau(), "min", ESS_MIN)));
        }
        return out;
    }

    private static void equivalence(List<Reason> out, String gate, double effect, double se, double margin, String what) {
        double bound = Math.abs(effect) + Z * se;
        if (!(bound <= margin)) {
            out.add(new Reason(gate, numbers("effect_ns", effect, "se_ns", se, "upper_bound_ns", bound,
                    "margin_ns", margin, "effect", what)));
        }
    }

    private static void check(List<Reason> out, ContextAnalysis.Check c, String divergent, String unavailable,
            double theta, double thetaSe) {
        if (!c.available()) {
            out.add(new Reason(unavailable, numbers("pairs", c.pairs(), "why", c.failure())));
            return;
        }
        double diff = c.theta() - theta;
        double se = Math.sqrt(c.se() * c.se() + thetaSe * thetaSe);
        double margin = Math.max(CHECK_MARGIN_ABS_NS, CHECK_MARGIN_REL * Math.abs(theta));
        double bound = Math.abs(diff) + Z * se;
        if (!(bound <= margin)) {
            out.add(new Reason(divergent, numbers("check_ns", c.theta(), "main_ns", theta, "difference_ns", diff,
                    "se_ns", se, "upper_bound_ns", bound, "margin_ns", margin)));
        }
    }

    static Map<String, Object> numbers(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
