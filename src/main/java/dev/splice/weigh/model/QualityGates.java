package dev.splice.weigh.model;

import dev.splice.weigh.campaign.Reason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gates a context must pass to be high-confidence. Every threshold is a named constant here and
 * documented in docs/weigh-model.md. "Equivalent to zero" is a one-sided 95% bound test (TOST) with
 * the run pseudo-values' standard error and Student's t with {@code R - 1} degrees of freedom:
 * {@code |effect| + t_{0.95, R-1} se <= margin}.
 */
final class QualityGates {
    /** Gate {@code interrupt-rate-above-background}. */
    static final String EVENT_RATE = "interrupt-rate-above-background";
    /** Gate {@code estimate-unstable-under-events}. */
    static final String EVENT_UNSTABLE = "estimate-unstable-under-events";
    /** Gate {@code irls-not-converged}. */
    static final String IRLS_NOT_CONVERGED = "irls-not-converged";
    /** Gate {@code per-run-irls-not-converged}. */
    static final String RUN_IRLS_NOT_CONVERGED = "per-run-irls-not-converged";
    /** Gate {@code cross-run-heterogeneity-high}. */
    static final String HETEROGENEITY = "cross-run-heterogeneity-high";
    /** Gate {@code order-effect-not-equivalent}. */
    static final String ORDER = "order-effect-not-equivalent";
    /** Gate {@code drift-effect-not-equivalent}. */
    static final String DRIFT = "drift-effect-not-equivalent";
    /** Gate {@code batch-size-nonlinearity}. */
    static final String BATCH = "batch-size-nonlinearity";
    /** Gate {@code plugin-off-check-divergent}. */
    static final String OFF_DIVERGENT = "plugin-off-check-divergent";
    /** Gate {@code plugin-off-check-unavailable}. */
    static final String OFF_UNAVAILABLE = "plugin-off-check-unavailable";
    /** Gate {@code cross-clock-check-divergent}. */
    static final String CLOCK_DIVERGENT = "cross-clock-check-divergent";
    /** Gate {@code cross-clock-check-unavailable}. */
    static final String CLOCK_UNAVAILABLE = "cross-clock-check-unavailable";
    /** Gate {@code simultaneous-ci-too-wide}. */
    static final String CI_TOO_WIDE = "simultaneous-ci-too-wide";
    /** Gate {@code ess-below-minimum}. */
    static final String ESS_LOW = "ess-below-minimum";
    /** Gate {@code unidentifiable}. */
    static final String UNIDENTIFIABLE = "unidentifiable";
    /** Gate {@code fit-failed}. */
    static final String FIT_FAILED = "fit-failed";

    /**
     * The estimate and the Huber fit of the pairs without detected events may differ by at most this
     * share of the band's half-width.
     */
    static final double EVENT_SHIFT_MAX = 0.5;
    /** Heterogeneity fails when I^2 exceeds this ... */
    static final double HETEROGENEITY_I2_MAX = 0.75;
    /** ... and tau exceeds max(this share of |estimate|, the campaign's practical-zero margin). */
    static final double HETEROGENEITY_TAU_REL = 0.10;
    /** Equivalence margin of the order, drift and batch effects: max(abs, rel * |contrast|). */
    static final double EFFECT_MARGIN_ABS_NS = 0.05;
    /** The relative part of the margin above. */
    static final double EFFECT_MARGIN_REL = 0.10;
    /**
     * Equivalence margin of the plugin-off and cross-clock checks: this share of the main contrast,
     * or the campaign's practical-zero margin when that is larger (no absolute floor: with one of
     * 0.15 ns, a check of a 0.05 ns contrast could differ by 300% and pass).
     */
    static final double CHECK_MARGIN_REL = 0.20;
    /** The simultaneous half-width may be at most max(abs, rel * |estimate|). */
    static final double CI_HALF_WIDTH_ABS_NS = 0.15;
    /** The relative part of the margin above. */
    static final double CI_HALF_WIDTH_REL = 0.20;
    /** Minimum effective sample size. */
    static final double ESS_MIN = 20;
    /** One-sided level of the equivalence tests. */
    static final double ONE_SIDED = 0.05;

    private QualityGates() {}

    /**
     * What the gates need beside the analysis.
     *
     * @param estimate the absolute estimate
     * @param halfWidth the simultaneous half-width (NaN when unidentifiable)
     * @param events the context against the campaign's interrupt background
     * @param zeroMargin the campaign's practical-zero margin (ns)
     */
    record Inputs(double estimate, double halfWidth, Interrupts.ContextEvents events, double zeroMargin) {}

    /**
     * @param a the context's analysis
     * @param in the band, events and margin
     * @return the failed gates with their numbers
     */
    static List<Reason> evaluate(ContextAnalysis a, Inputs in) {
        List<Reason> out = new ArrayList<>();
        HuberFit f = a.fit();
        if (!f.ok()) {
            out.add(new Reason(FIT_FAILED, numbers("why", f.failure(), "pairs", a.data().size())));
            return out;
        }
        double theta = f.theta();
        int runs = a.runTheta() == null ? 0 : RunValues.count(a.runTheta());
        double t = runs >= 2 ? Distributions.studentCritical(2 * ONE_SIDED, runs - 1) : Double.NaN;
        Interrupts.ContextEvents ev = in.events();
        if (ev.aboveBackground()) {
            out.add(new Reason(EVENT_RATE, numbers("events", ev.observed(), "expected", ev.expected(),
                    "p_excess", ev.pExcess(), "p_max", Interrupts.EXCESS_P, "ratio_max", Interrupts.EXCESS_RATIO)));
        }
        double shift = a.withoutEvents().ok() ? a.withoutEvents().theta() - theta : Double.NaN;
        if (Double.isFinite(in.halfWidth()) && !(Math.abs(shift) <= EVENT_SHIFT_MAX * in.halfWidth())) {
            out.add(new Reason(EVENT_UNSTABLE, numbers("estimate_ns", theta, "without_events_ns",
                    a.withoutEvents().theta(), "shift_ns", shift, "half_width_ns", in.halfWidth(), "max_share",
                    EVENT_SHIFT_MAX)));
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
        double scale = Double.isFinite(in.estimate()) ? Math.abs(in.estimate()) : Math.abs(theta);
        double tauLimit = Math.max(HETEROGENEITY_TAU_REL * scale, in.zeroMargin());
        if (a.dlI2() > HETEROGENEITY_I2_MAX && Math.sqrt(a.dlTau2()) > tauLimit) {
            out.add(new Reason(HETEROGENEITY, numbers("i2", a.dlI2(), "tau_ns", Math.sqrt(a.dlTau2()),
                    "q", a.dlQ(), "i2_max", HETEROGENEITY_I2_MAX, "tau_max_ns", tauLimit)));
        }
        double margin = Math.max(EFFECT_MARGIN_ABS_NS, EFFECT_MARGIN_REL * Math.abs(theta));
        equivalence(out, ORDER, f.beta()[0], se(a, 0), t, margin, "AB minus BA");
        equivalence(out, DRIFT, f.beta()[1], se(a, 1), t, margin, "end minus start of a run");
        for (ContextAnalysis.LackOfFit l : a.lackOfFit()) {
            double tl = l.runs() >= 2 ? Distributions.studentCritical(2 * ONE_SIDED, l.runs() - 1) : Double.NaN;
            equivalence(out, BATCH, l.deviation(), l.se(), tl, margin,
                    "batch " + l.batch() + " off the line beta + alpha/N through the smallest and largest batch");
        }
        checks(out, a, in.zeroMargin());
        double widthLimit = Math.max(CI_HALF_WIDTH_ABS_NS, CI_HALF_WIDTH_REL * Math.abs(in.estimate()));
        if (!(in.halfWidth() <= widthLimit)) {
            out.add(new Reason(CI_TOO_WIDE, numbers("half_width_ns", in.halfWidth(), "max_ns", widthLimit)));
        }
        if (!(a.ess() >= ESS_MIN)) {
            out.add(new Reason(ESS_LOW, numbers("ess", a.ess(), "ess_kish", a.essKish(), "tau", a.tau(), "min", ESS_MIN)));
        }
        return out;
    }

    /** Standard error of covariate j's coefficient from its run pseudo-values (0 when dropped as inestimable). */
    static double se(ContextAnalysis a, int j) {
        if (!a.fit().active()[j]) {
            return 0;
        }
        return a.runBeta() == null ? Double.NaN : RunValues.standardError(a.runBeta()[j]);
    }

    private static void equivalence(List<Reason> out, String gate, double effect, double se, double t, double margin,
            String what) {
        double bound = Math.abs(effect) + t * se;
        if (!(bound <= margin)) {
            out.add(new Reason(gate, numbers("effect_ns", effect, "se_ns", se, "upper_bound_ns", bound,
                    "margin_ns", margin, "effect", what)));
        }
    }

    /**
     * The two checks, each testing one change against the same runs: plugin-off against plugin-on on
     * the guest clock (the pass changes, the clock does not), and plugin-on guest clock against
     * plugin-on thread CPU time (the clock changes, the windows do not). Without a plugin-on
     * guest-clock estimate the plugin-off check falls back to the main estimate (pass and clock change
     * together).
     */
    private static void checks(List<Reason> out, ContextAnalysis a, double zeroMargin) {
        double theta = a.fit().theta();
        double margin = Math.max(CHECK_MARGIN_REL * Math.abs(theta), zeroMargin);
        ContextAnalysis.Check on = a.crossClock();
        ContextAnalysis.Check off = a.pluginOff();
        if (on.available()) {
            paired(out, off, on, OFF_DIVERGENT, OFF_UNAVAILABLE, margin, "plugin-off minus plugin-on, guest clock");
        } else {
            paired(out, off, main(a), OFF_DIVERGENT, OFF_UNAVAILABLE, margin,
                    "plugin-off guest clock minus plugin-on thread CPU time (no plugin-on guest-clock estimate)");
        }
        paired(out, on, main(a), CLOCK_DIVERGENT, CLOCK_UNAVAILABLE, margin,
                "plugin-on guest clock minus thread CPU time");
    }

    /** The main estimate as a check, for differences against it. */
    private static ContextAnalysis.Check main(ContextAnalysis a) {
        return new ContextAnalysis.Check(a.data().size(), a.fit().theta(), a.se(), a.runTheta(), null);
    }

    /**
     * TOST of {@code c - ref} within {@code +-margin}: it passes when {@code |d| + t_{0.95, R-1} se <= margin},
     * with the paired standard error of the per-run pseudo-value differences when both have them for at
     * least two runs (the runs' own offsets cancel), else the unpaired {@code sqrt(se_c^2 + se_ref^2)}. A
     * failure carries the power: the chance the test passes when the two are truly equal.
     */
    private static void paired(List<Reason> out, ContextAnalysis.Check c, ContextAnalysis.Check ref, String divergent,
            String unavailable, double margin, String what) {
        if (!c.available()) {
            out.add(new Reason(unavailable, numbers("pairs", c.pairs(), "why", c.failure())));
            return;
        }
        Difference d = Difference.of(c, ref);
        double t = d.runs() >= 2 ? Distributions.studentCritical(2 * ONE_SIDED, d.runs() - 1) : Double.NaN;
        double bound = Math.abs(d.value()) + t * d.se();
        if (!(bound <= margin)) {
            out.add(new Reason(divergent, numbers("check_ns", c.theta(), "reference_ns", ref.theta(), "difference_ns",
                    d.value(), "se_ns", d.se(), "paired", d.paired(), "upper_bound_ns", bound, "margin_ns", margin,
                    "power_if_equal", power(margin, d.se(), t, d.runs() - 1), "difference", what)));
        }
    }

    /**
     * The chance that the equivalence test passes when the true difference is 0: {@code P(|T| se <=
     * margin - t se)} for Student's T with {@code df} degrees of freedom.
     *
     * @param margin the equivalence margin
     * @param se the difference's standard error
     * @param t the one-sided critical value
     * @param df its degrees of freedom
     * @return the power, 0 when {@code margin <= t se}
     */
    static double power(double margin, double se, double t, double df) {
        double room = margin / se - t;
        if (!(room > 0) || !(df > 0)) {
            return 0;
        }
        return 1 - Distributions.studentTwoSidedTail(room, df);
    }

    /** A difference of two estimates of the same contrast, with its standard error. */
    record Difference(double value, double se, int runs, boolean paired) {
        static Difference of(ContextAnalysis.Check c, ContextAnalysis.Check ref) {
            double value = c.theta() - ref.theta();
            if (c.runValues() != null && ref.runValues() != null && c.runValues().length == ref.runValues().length) {
                double[] diff = new double[c.runValues().length];
                for (int r = 0; r < diff.length; r++) {
                    diff[r] = c.runValues()[r] - ref.runValues()[r];
                }
                double se = RunValues.standardError(diff);
                if (Double.isFinite(se)) {
                    return new Difference(value, se, RunValues.count(diff), true);
                }
            }
            int runs = Math.min(c.runValues() == null ? 0 : RunValues.count(c.runValues()),
                    ref.runValues() == null ? 0 : RunValues.count(ref.runValues()));
            return new Difference(value, Math.sqrt(c.se() * c.se() + ref.se() * ref.se()), runs, false);
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
