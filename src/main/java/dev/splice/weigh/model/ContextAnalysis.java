package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.List;

/**
 * What the full-data fit of one context says, before the bootstrap: the estimate, the nuisance
 * effects, effective sample size, severe outliers, per-run fits and their heterogeneity, and the
 * plugin-off and cross-clock fits. Fields are NaN where not computable.
 */
record ContextAnalysis(
        ContextData data,
        HuberFit fit,
        double asymptoticSe,
        double essKish,
        double tau,
        double ess,
        int severeOutliers,
        double severeUpper,
        List<RunFit> runFits,
        double dlQ,
        double dlTau2,
        double dlI2,
        Check pluginOff,
        Check crossClock) {

    /** One run's own fit (intercept and covariates): its estimate, variance and convergence. */
    record RunFit(String run, int pairs, double theta, double variance, boolean converged, int iterations,
            String failure) {}

    /** An auxiliary estimate of the same contrast by another clock; {@code pairs == 0} if unavailable. */
    record Check(int pairs, double theta, double se, String failure) {
        boolean available() {
            return failure == null && Double.isFinite(theta) && Double.isFinite(se);
        }
    }

    /** Huber weight below which a pair counts as a severe outlier (|u| > 1.345/0.25 = 5.38 scales). */
    static final double SEVERE_WEIGHT = 0.25;
    /** One-sided 95% normal quantile used by the Wilson bound. */
    static final double Z95_ONE_SIDED = 1.6448536269514722;
    /** A run needs this many kept pairs for its own fit. */
    static final int MIN_RUN_PAIRS = 8;
    /**
     * Per-run fits (about 30 pairs, 4 parameters) converge slowly when the MAD scale keeps moving;
     * they only feed the heterogeneity statistics, for which 1e-6 is ample.
     */
    static final double RUN_FIT_TOLERANCE = 1e-6;
    /** An auxiliary check needs this many usable pairs. */
    static final int MIN_CHECK_PAIRS = 20;

    static ContextAnalysis analyse(ContextData c, ContextData off, List<String> runNames, FitOptions o) {
        int runs = runNames.size();
        int[] level = new int[c.size()];
        Design d = Subset.all(c, c.y(), runs, level);
        ContextModel.Core core = ContextModel.fit(d, level, c.batches().length, o);
        HuberFit f = core.fit();
        if (!f.ok()) {
            return new ContextAnalysis(c, f, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN,
                    List.of(), Double.NaN, Double.NaN, Double.NaN, check(off, runs, o), guestCheck(c, runs, o));
        }
        Design weighted = d.withPriorWeights(core.prior());
        double se = Math.sqrt(ContextModel.thetaVariance(weighted, f, o));
        int n = c.size();
        double sw = 0;
        double sw2 = 0;
        int severe = 0;
        for (int i = 0; i < n; i++) {
            double w = f.huberWeights()[i] * core.prior()[i];
            sw += w;
            sw2 += w * w;
            severe += f.huberWeights()[i] < SEVERE_WEIGHT ? 1 : 0;
        }
        double kish = sw * sw / sw2;
        double tau = integratedAutocorrelationTime(c, f, core.prior());
        List<RunFit> runFits = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            int[] rows = Subset.rowsOfRun(c, r);
            if (rows.length == 0) {
                continue;
            }
            if (rows.length < MIN_RUN_PAIRS) {
                runFits.add(new RunFit(runNames.get(r), rows.length, Double.NaN, Double.NaN, false, 0,
                        "fewer than " + MIN_RUN_PAIRS + " pairs"));
                continue;
            }
            int[] lv = new int[rows.length];
            Design rd = Subset.design(c, c.y(), rows, new int[rows.length], 1, lv);
            double[] h = new double[rows.length];
            for (int i = 0; i < rows.length; i++) {
                h[i] = core.prior()[rows[i]];
            }
            rd = rd.withPriorWeights(h);
            HuberFit rf = HuberRegression.fit(rd, o.withTolerance(Math.max(o.tolerance(), RUN_FIT_TOLERANCE)));
            double v = rf.ok() ? ContextModel.thetaVariance(rd, rf, o) : Double.NaN;
            runFits.add(new RunFit(runNames.get(r), rows.length, rf.theta(), v, rf.ok() && rf.converged(),
                    rf.iterations(), rf.failure()));
        }
        double[] dl = derSimonianLaird(runFits);
        return new ContextAnalysis(c, f, se, kish, tau, kish / tau, severe, wilsonUpper(severe, n), runFits,
                dl[0], dl[1], dl[2], check(off, runs, o), guestCheck(c, runs, o));
    }

    /** One-sided 95% Wilson upper bound of a binomial share. */
    static double wilsonUpper(int k, int n) {
        if (n == 0) {
            return Double.NaN;
        }
        double z = Z95_ONE_SIDED;
        double p = k / (double) n;
        double z2n = z * z / n;
        return (p + z2n / 2 + z * Math.sqrt(p * (1 - p) / n + z2n / (4.0 * n))) / (1 + z2n);
    }

    /**
     * Residuals averaged (with the fit's weights) per probe round within each run, centred per run;
     * the lag-k autocorrelations are pooled over runs and summed while positive (Geyer's initial
     * positive sequence, truncated at half the longest run): {@code tau = 1 + 2 sum rho_k >= 1}.
     */
    static double integratedAutocorrelationTime(ContextData c, HuberFit f, double[] prior) {
        List<double[]> series = new ArrayList<>();
        int longest = 0;
        for (int[][] rounds : c.rowsByRunRound()) {
            double[] s = new double[rounds.length];
            int len = 0;
            for (int[] rows : rounds) {
                double num = 0;
                double den = 0;
                for (int i : rows) {
                    double w = f.huberWeights()[i] * prior[i];
                    num += w * f.residuals()[i];
                    den += w;
                }
                if (den > 0) {
                    s[len++] = num / den;
                }
            }
            if (len >= 2) {
                double[] t = java.util.Arrays.copyOf(s, len);
                double mean = java.util.Arrays.stream(t).average().orElse(0);
                for (int q = 0; q < len; q++) {
                    t[q] -= mean;
                }
                series.add(t);
                longest = Math.max(longest, len);
            }
        }
        double c0 = 0;
        for (double[] t : series) {
            for (double v : t) {
                c0 += v * v;
            }
        }
        if (!(c0 > 0)) {
            return 1.0;
        }
        double tau = 1;
        for (int lag = 1; lag <= longest / 2; lag++) {
            double ck = 0;
            for (double[] t : series) {
                for (int q = 0; q + lag < t.length; q++) {
                    ck += t[q] * t[q + lag];
                }
            }
            double rho = ck / c0;
            if (!(rho > 0)) {
                break;
            }
            tau += 2 * rho;
        }
        return Math.max(1.0, tau);
    }

    /** {Q, tau^2, I^2} of the per-run estimates (NaN with fewer than two usable runs). */
    static double[] derSimonianLaird(List<RunFit> fits) {
        double sw = 0;
        double sw2 = 0;
        double swt = 0;
        int m = 0;
        for (RunFit f : fits) {
            if (Double.isFinite(f.theta()) && f.variance() > 0) {
                double w = 1 / f.variance();
                sw += w;
                sw2 += w * w;
                swt += w * f.theta();
                m++;
            }
        }
        if (m < 2) {
            return new double[] {Double.NaN, Double.NaN, Double.NaN};
        }
        double mean = swt / sw;
        double q = 0;
        for (RunFit f : fits) {
            if (Double.isFinite(f.theta()) && f.variance() > 0) {
                q += (f.theta() - mean) * (f.theta() - mean) / f.variance();
            }
        }
        double df = m - 1;
        double tau2 = Math.max(0, (q - df) / (sw - sw2 / sw));
        double i2 = q > 0 ? Math.max(0, (q - df) / q) : 0;
        return new double[] {q, tau2, i2};
    }

    /** The plugin-off estimate: the same complete model on the guest-clock plugin-off pairs. */
    static Check check(ContextData off, int runs, FitOptions o) {
        if (off == null || off.size() < MIN_CHECK_PAIRS) {
            return new Check(off == null ? 0 : off.size(), Double.NaN, Double.NaN,
                    "fewer than " + MIN_CHECK_PAIRS + " plugin-off pairs");
        }
        return fitCheck(off, off.y(), java.util.stream.IntStream.range(0, off.size()).toArray(), runs, o);
    }

    /** The cross-clock estimate: the same model on the plugin-on pairs' guest-clock differences. */
    static Check guestCheck(ContextData c, int runs, FitOptions o) {
        int[] rows = java.util.stream.IntStream.range(0, c.size()).filter(i -> Double.isFinite(c.guestY()[i])).toArray();
        if (rows.length < MIN_CHECK_PAIRS) {
            return new Check(rows.length, Double.NaN, Double.NaN, "fewer than " + MIN_CHECK_PAIRS
                    + " pairs with guest-clock times");
        }
        return fitCheck(c, c.guestY(), rows, runs, o);
    }

    private static Check fitCheck(ContextData c, double[] y, int[] rows, int runs, FitOptions o) {
        int[] label = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            label[i] = c.run()[rows[i]];
        }
        int[] level = new int[rows.length];
        Design d = Subset.design(c, y, rows, label, runs, level);
        ContextModel.Core core = ContextModel.fit(d, level, c.batches().length, o);
        if (!core.fit().ok()) {
            return new Check(rows.length, Double.NaN, Double.NaN, core.fit().failure());
        }
        double v = ContextModel.thetaVariance(d.withPriorWeights(core.prior()), core.fit(), o);
        return new Check(rows.length, core.fit().theta(), Math.sqrt(v), null);
    }
}
