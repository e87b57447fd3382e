package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.List;

/**
 * What the fit of one context says before the family-wise band: the estimate and its per-run
 * pseudo-values, the nuisance effects, effective sample size, the pairs the bisquare rejected and
 * the interrupt events among them, lack of fit across batch sizes, per-run fits and their
 * heterogeneity, and the plugin-off and cross-clock fits. Fields are NaN where not computable.
 *
 * @param fit the final (bisquare) fit
 * @param withoutEvents the Huber fit (same prior weights) of the pairs left when the detected events are
 *     removed: if the events are all the contamination, it agrees with the bisquare
 * @param varianceExponent gamma of the variance function {@code s_N ~ N^gamma}
 * @param runTheta pseudo-values of the contrast per campaign run (NaN where the context has no pairs in
 *     a run); null when the fit failed
 * @param runBeta pseudo-values of the covariate coefficients, {@code [covariate][campaign run]}
 * @param se standard error of the contrast from the run pseudo-values (NaN when not computable)
 * @param asymptoticSe the within-run asymptotic SE (MASS's formula; ignores run-to-run variation)
 * @param rejected pairs the bisquare gave no weight
 */
record ContextAnalysis(
        ContextData data,
        HuberFit fit,
        HuberFit withoutEvents,
        double varianceExponent,
        double[] runTheta,
        double[][] runBeta,
        double se,
        double asymptoticSe,
        double essKish,
        double tau,
        double ess,
        int rejected,
        Events events,
        List<LackOfFit> lackOfFit,
        List<RunFit> runFits,
        double dlQ,
        double dlTau2,
        double dlI2,
        Check pluginOff,
        Check crossClock) {

    /** One run's own fit (intercept and covariates): its estimate, variance and convergence. */
    record RunFit(String run, int pairs, double theta, double variance, boolean converged, int iterations,
            String failure) {}

    /**
     * An auxiliary estimate of the same contrast by another clock or pass; {@code pairs == 0} if
     * unavailable. {@code runValues} are its per-run pseudo-values by campaign run (NaN where a run
     * has none, null when unavailable), so that a difference of two estimates from the same runs gets
     * a paired standard error.
     */
    record Check(int pairs, double theta, double se, double[] runValues, String failure) {
        /** @return whether the check has an estimate and a standard error */
        boolean available() {
            return failure == null && Double.isFinite(theta) && Double.isFinite(se);
        }
    }

    /**
     * Interrupt events of a context: pairs whose residual, in window time ({@code |r| N}), is at least
     * their detection threshold {@code max(EVENT_MIN_NS, 2 c s N / sqrt(h))} (twice the bisquare's
     * rejection point, so that heavy-tailed noise is not counted). A positive residual is an event in the probe window,
     * a negative one in the baseline window. A pair counts once however many events hit it.
     *
     * @param event per pair, whether it is a detected event
     * @param size per pair, the window-time size of its event (ns; 0 for no event)
     * @param threshold per pair, the smallest event the model detects there (ns of window time)
     * @param sensitive per pair, whether its threshold is {@code EVENT_MIN_NS} (every event of at least
     *     that size is detected there)
     */
    record Events(boolean[] event, double[] size, double[] threshold, boolean[] sensitive) {
        /** @return the number of detected events */
        int observed() {
            int n = 0;
            for (boolean e : event) {
                n += e ? 1 : 0;
            }
            return n;
        }
    }

    /**
     * Lack of fit of {@code d = beta + alpha/N} at an interior batch size: the mean residual there
     * minus the line through the mean residuals of the smallest and largest batch sizes, averaged over
     * runs (ns per instruction); zero for any straight line in {@code 1/N}.
     *
     * @param se standard error from its per-run values
     * @param runs runs with all three batch sizes
     */
    record LackOfFit(int batch, double deviation, double se, int runs) {}

    /** Smallest window-time residual counted as an interrupt event (ns): seed 003's events are 15 to 60 us. */
    static final double EVENT_MIN_NS = 5_000;
    /** An event is also at least this many times the bisquare's rejection point away from the fit. */
    static final double EVENT_NOISE_FACTOR = 2;
    /** A run needs this many kept pairs for its own fit. */
    static final int MIN_RUN_PAIRS = 8;
    /** Per-run fits only feed the heterogeneity statistics, for which 1e-6 is ample. */
    static final double RUN_FIT_TOLERANCE = 1e-6;
    /**
     * A fixed-scale bisquare always descends, but pairs near its rejection point make the last digits
     * slow: 30 pairs may need more than 100 iterations.
     */
    static final int RUN_FIT_MAX_ITERATIONS = 1000;
    /** An auxiliary check needs this many usable pairs. */
    static final int MIN_CHECK_PAIRS = 20;

    /**
     * Fits and diagnoses one context.
     *
     * @param c the context's kept pairs
     * @param off its plugin-off pairs, or null
     * @param runNames the campaign's runs
     * @param o the Huber fit options
     * @return the analysis
     */
    static ContextAnalysis analyse(ContextData c, ContextData off, List<String> runNames, FitOptions o) {
        int runs = runNames.size();
        int[] level = new int[c.size()];
        Design d = Subset.all(c, c.y(), runs, level);
        ContextModel.Core core = ContextModel.fit(d, level, c.batches(), o);
        HuberFit f = core.fit();
        Check offCheck = check(off, runs, o);
        Check clock = guestCheck(c, runs, o);
        if (!f.ok()) {
            return new ContextAnalysis(c, f, f, core.varianceExponent(), null, null, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, Double.NaN, 0, new Events(new boolean[0], new double[0], new double[0], new boolean[0]),
                    List.of(), List.of(), Double.NaN, Double.NaN, Double.NaN, offCheck, clock);
        }
        Design weighted = d.withPriorWeights(core.prior());
        double[][] phi = campaignRuns(c.run(), d, RunValues.of(weighted, f, o.bisquare()), runs);
        double se = phi == null ? Double.NaN : RunValues.standardError(phi[0]);
        double asymptotic = Math.sqrt(ContextModel.thetaVariance(weighted, f, o.bisquare()));
        int n = c.size();
        double sw = 0;
        double sw2 = 0;
        int rejected = 0;
        for (int i = 0; i < n; i++) {
            double w = f.huberWeights()[i] * core.prior()[i];
            sw += w;
            sw2 += w * w;
            rejected += f.huberWeights()[i] == 0 ? 1 : 0;
        }
        double kish = sw * sw / sw2;
        double tau = integratedAutocorrelationTime(c, f, core.prior());
        List<RunFit> runFits = runFits(c, d, f, core.prior(), runNames, o);
        double[] dl = derSimonianLaird(runFits);
        Events events = events(c, f, core.prior(), o.bisquare().k());
        return new ContextAnalysis(c, f, withoutEvents(c, events, core.prior(), runs, o), core.varianceExponent(),
                phi == null ? null : phi[0], phi == null ? null : java.util.Arrays.copyOfRange(phi, 1, phi.length), se,
                asymptotic, kish, tau, kish / tau, rejected, events, lackOfFit(c, f, core.prior()), runFits, dl[0], dl[1],
                dl[2], offCheck, clock);
    }

    /** The Huber fit of the pairs that are not detected events, with their prior weights. */
    private static HuberFit withoutEvents(ContextData c, Events e, double[] prior, int runs, FitOptions o) {
        int[] rows = java.util.stream.IntStream.range(0, c.size()).filter(i -> !e.event()[i]).toArray();
        int[] label = new int[rows.length];
        double[] h = new double[rows.length];
        for (int i = 0; i < rows.length; i++) {
            label[i] = c.run()[rows[i]];
            h[i] = prior[rows[i]];
        }
        Design d = Subset.design(c, c.y(), rows, label, runs, new int[rows.length]);
        return HuberRegression.fit(d.withPriorWeights(h), o);
    }

    /**
     * Pseudo-values moved from the design's compact run numbers to campaign run indices (NaN where
     * absent); {@code campaignRun[i]} is the campaign run of the design's row {@code i}.
     */
    private static double[][] campaignRuns(int[] campaignRun, Design d, double[][] compact, int runs) {
        if (compact == null) {
            return null;
        }
        int[] campaignOf = new int[d.runs()];
        for (int i = 0; i < d.size(); i++) {
            campaignOf[d.run()[i]] = campaignRun[i];
        }
        double[][] out = new double[compact.length][runs];
        for (double[] row : out) {
            java.util.Arrays.fill(row, Double.NaN);
        }
        for (int q = 0; q < compact.length; q++) {
            for (int r = 0; r < d.runs(); r++) {
                out[q][campaignOf[r]] = compact[q][r];
            }
        }
        return out;
    }

    /**
     * Each run's own fit: the bisquare on the run's pairs with the context's prior weights, started
     * from the context's fit (its run intercept and coefficients) and holding the context's robust
     * scale, which some 300 pairs estimate better than a run's 30.
     */
    private static List<RunFit> runFits(ContextData c, Design all, HuberFit f, double[] prior, List<String> runNames,
            FitOptions o) {
        List<RunFit> out = new ArrayList<>();
        FitOptions b = o.withTolerance(Math.max(o.tolerance(), RUN_FIT_TOLERANCE)).bisquare();
        FitOptions runOptions = new FitOptions(b.psi(), b.k(), b.scaleConstant(), b.tolerance(),
                Math.max(b.maxIterations(), RUN_FIT_MAX_ITERATIONS));
        int[] compact = new int[runNames.size()];
        for (int i = 0; i < c.size(); i++) {
            compact[c.run()[i]] = all.run()[i];
        }
        for (int r = 0; r < runNames.size(); r++) {
            int[] rows = Subset.rowsOfRun(c, r);
            if (rows.length == 0) {
                continue;
            }
            if (rows.length < MIN_RUN_PAIRS) {
                out.add(new RunFit(runNames.get(r), rows.length, Double.NaN, Double.NaN, false, 0,
                        "fewer than " + MIN_RUN_PAIRS + " pairs"));
                continue;
            }
            int[] lv = new int[rows.length];
            Design rd = Subset.design(c, c.y(), rows, new int[rows.length], 1, lv);
            double[] h = new double[rows.length];
            for (int i = 0; i < rows.length; i++) {
                h[i] = prior[rows[i]];
            }
            rd = rd.withPriorWeights(h);
            double mu = f.runIntercepts()[compact[r]];
            HuberFit start = new HuberFit(mu, new double[] {mu}, f.beta(), f.active(), f.scale(), new double[0],
                    new double[0], true, 0, null);
            HuberFit rf = HuberRegression.fit(rd, runOptions, start);
            double v = rf.ok() ? ContextModel.thetaVariance(rd, rf, runOptions) : Double.NaN;
            out.add(new RunFit(runNames.get(r), rows.length, rf.theta(), v, rf.ok() && rf.converged(), rf.iterations(),
                    rf.failure()));
        }
        return out;
    }

    /** Detected interrupt events and every pair's detection threshold (see {@link Events}). */
    static Events events(ContextData c, HuberFit f, double[] prior, double rejection) {
        int n = c.size();
        boolean[] event = new boolean[n];
        double[] size = new double[n];
        double[] threshold = new double[n];
        boolean[] sensitive = new boolean[n];
        for (int i = 0; i < n; i++) {
            int batch = c.batch(i);
            double noiseLimit = EVENT_NOISE_FACTOR * rejection * f.scale() / Math.sqrt(prior[i]) * batch;
            threshold[i] = Math.max(EVENT_MIN_NS, noiseLimit);
            sensitive[i] = noiseLimit <= EVENT_MIN_NS;
            double s = Math.abs(f.residuals()[i]) * batch;
            if (s >= threshold[i]) {
                event[i] = true;
                size[i] = s;
            }
        }
        return new Events(event, size, threshold, sensitive);
    }

    /** Lack of fit at each interior batch size, from the final fit's weighted residuals per run. */
    static List<LackOfFit> lackOfFit(ContextData c, HuberFit f, double[] prior) {
        int levels = c.batches().length;
        List<LackOfFit> out = new ArrayList<>();
        if (levels < 3) {
            return out;
        }
        int runs = c.rowsByRunRound().length;
        double[][] num = new double[runs][levels];
        double[][] den = new double[runs][levels];
        for (int i = 0; i < c.size(); i++) {
            double v = prior[i] * f.huberWeights()[i];
            num[c.run()[i]][c.batchLevel()[i]] += v * f.residuals()[i];
            den[c.run()[i]][c.batchLevel()[i]] += v;
        }
        double xLo = 1.0 / c.batches()[0];
        double xHi = 1.0 / c.batches()[levels - 1];
        for (int l = 1; l < levels - 1; l++) {
            double lambda = (1.0 / c.batches()[l] - xHi) / (xLo - xHi);
            double[] g = new double[runs];
            for (int r = 0; r < runs; r++) {
                boolean all = den[r][0] > 0 && den[r][l] > 0 && den[r][levels - 1] > 0;
                g[r] = all ? num[r][l] / den[r][l] - lambda * num[r][0] / den[r][0]
                        - (1 - lambda) * num[r][levels - 1] / den[r][levels - 1] : Double.NaN;
            }
            int m = RunValues.count(g);
            double mean = java.util.Arrays.stream(g).filter(Double::isFinite).average().orElse(Double.NaN);
            out.add(new LackOfFit(c.batches()[l], mean, RunValues.standardError(g), m));
        }
        return out;
    }

    /**
     * Residuals averaged (with the fit's weights) per probe round within each run, centred per run;
     * tau is that of an AR(1) process, {@code tau = (1 + phi) / (1 - phi)}, with {@code phi} the
     * lag-1 autocorrelation pooled over runs and corrected for the centring of short series (Kendall:
     * {@code E[r1] = phi - (1 + 3 phi) / n}, so {@code phi = (n r1 + 1) / (n - 3)} with {@code n} the
     * mean series length), clamped to {@code [0, PHI_MAX]}. Geyer's initial positive sequence, used
     * before, is biased low on series of 10 rounds: on synthetic AR(1) rounds it gave 1.56 for
     * {@code phi = 0.5} (tau 3) and never bound ({@code AutocorrelationTest}).
     */
    static double integratedAutocorrelationTime(ContextData c, HuberFit f, double[] prior) {
        double c0 = 0;
        double c1 = 0;
        int series = 0;
        int points = 0;
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
            if (len < 2) {
                continue;
            }
            double mean = 0;
            for (int q = 0; q < len; q++) {
                mean += s[q] / len;
            }
            for (int q = 0; q < len; q++) {
                c0 += (s[q] - mean) * (s[q] - mean);
                if (q + 1 < len) {
                    c1 += (s[q] - mean) * (s[q + 1] - mean);
                }
            }
            series++;
            points += len;
        }
        double n = series == 0 ? 0 : (double) points / series;
        if (!(c0 > 0) || !(n > 3)) {
            return 1.0;
        }
        double phi = Math.min(PHI_MAX, Math.max(0, (n * (c1 / c0) + 1) / (n - 3)));
        return (1 + phi) / (1 - phi);
    }

    /** The largest lag-1 autocorrelation the AR(1) tau uses (tau at most 39). */
    static final double PHI_MAX = 0.95;

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
            return new Check(off == null ? 0 : off.size(), Double.NaN, Double.NaN, null,
                    "fewer than " + MIN_CHECK_PAIRS + " plugin-off pairs");
        }
        return fitCheck(off, off.y(), java.util.stream.IntStream.range(0, off.size()).toArray(), runs, o);
    }

    /** The cross-clock estimate: the same model on the plugin-on pairs' guest-clock differences. */
    static Check guestCheck(ContextData c, int runs, FitOptions o) {
        int[] rows = java.util.stream.IntStream.range(0, c.size()).filter(i -> Double.isFinite(c.guestY()[i])).toArray();
        if (rows.length < MIN_CHECK_PAIRS) {
            return new Check(rows.length, Double.NaN, Double.NaN, null, "fewer than " + MIN_CHECK_PAIRS
                    + " pairs with guest-clock times");
        }
        return fitCheck(c, c.guestY(), rows, runs, o);
    }

    /** The check's estimate with its standard error from the run pseudo-values, as for the main estimate. */
    private static Check fitCheck(ContextData c, double[] y, int[] rows, int runs, FitOptions o) {
        int[] label = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            label[i] = c.run()[rows[i]];
        }
        int[] level = new int[rows.length];
        Design d = Subset.design(c, y, rows, label, runs, level);
        ContextModel.Core core = ContextModel.fit(d, level, c.batches(), o);
        if (!core.fit().ok()) {
            return new Check(rows.length, Double.NaN, Double.NaN, null, core.fit().failure());
        }
        double[][] phi = campaignRuns(label, d, RunValues.of(d.withPriorWeights(core.prior()), core.fit(), o.bisquare()),
                runs);
        double se = phi == null ? Double.NaN : RunValues.standardError(phi[0]);
        return new Check(rows.length, core.fit().theta(), se, phi == null ? null : phi[0], Double.isFinite(se) ? null
                : "no standard error (fewer than two runs or a singular design)");
    }
}
