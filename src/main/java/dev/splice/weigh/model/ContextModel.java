package dev.splice.weigh.model;

/**
 * The complete per-context fit:
 * <ol>
 *   <li>a preliminary unweighted Huber fit;
 *   <li>heteroscedastic weights from a variance function of the batch size: the robust scale of the
 *       preliminary residuals of each batch size N, {@code s_N}, is fitted by {@code ln s_N = a +
 *       gamma ln N} (least squares weighted by the pairs per batch size), and a pair's prior weight
 *       is {@code (N / N0)^(-2 gamma)} (N0 the geometric mean of the batch sizes);
 *   <li>a Huber fit with those prior weights, started from the preliminary coefficients; the variance
 *       function fitted again to its residuals, and the Huber fit repeated with the new weights;
 *   <li>the final fit: Tukey's bisquare (a redescending psi, {@link FitOptions#BISQUARE_C}) with the
 *       same prior weights, started from the Huber fit ({@link #bisquare}). It gives pairs beyond
 *       4.685 robust scales no weight at all, so one-sided contamination (interrupts hitting a window)
 *       does not pull the estimate as it pulls a monotone Huber fit.
 * </ol>
 */
final class ContextModel {
    /** The preliminary fit only feeds the weights; it need not be iterated as far as the final one. */
    static final double STAGE1_TOLERANCE = 1e-2;
    /** Weighted Huber fits of the variance-function iteration (the last one is the bisquare's start). */
    static final int VARIANCE_PASSES = 2;
    /** A batch size enters the variance function only with at least this many pairs. */
    static final int MIN_VARIANCE_PAIRS = 5;
    /** Rounds of scale re-estimation of the bisquare stage; not settling within them is non-convergence. */
    static final int MAX_SCALE_ROUNDS = 30;
    /**
     * The bisquare's scale has settled when a round moves it by at most this share: the MAD of a
     * finite sample moves in steps and can cycle between neighbouring order statistics (by about 1e-3),
     * which moves the estimate by about 1e-7 of itself.
     */
    static final double SCALE_TOLERANCE = 1e-2;

    private ContextModel() {}

    /**
     * The fits of one context.
     *
     * @param fit the final (bisquare) fit
     * @param huber the Huber fit with the same prior weights (the bisquare's start)
     * @param prior the prior weights of both, or null when the preliminary fit failed
     * @param varianceExponent {@code gamma} of the variance function (NaN with fewer than two usable batch sizes)
     */
    record Core(HuberFit fit, HuberFit huber, double[] prior, double varianceExponent) {}

    /**
     * Fits the design as above.
     *
     * @param unweighted the design without prior weights
     * @param batchLevel batch-size index of each row
     * @param batches the batch sizes, ascending
     * @param o the Huber options (the bisquare stage uses {@link FitOptions#bisquare()} of them)
     * @return the fits
     */
    static Core fit(Design unweighted, int[] batchLevel, int[] batches, FitOptions o) {
        HuberFit stage1 = HuberRegression.fit(unweighted, o.withTolerance(Math.max(o.tolerance(), STAGE1_TOLERANCE)));
        if (!stage1.ok()) {
            return new Core(stage1, stage1, null, Double.NaN);
        }
        double[] gamma = new double[1];
        double[] h = varianceWeights(stage1.residuals(), batchLevel, batches, o.scaleConstant(), gamma);
        HuberFit huber = stage1;
        // The unweighted fit lets the noisy small batches misplace the line, which inflates the
        // residuals of the quiet large ones: the variance function is fitted again to a weighted fit.
        for (int pass = 0; pass < VARIANCE_PASSES; pass++) {
            huber = HuberRegression.fit(unweighted.withPriorWeights(h), pass + 1 < VARIANCE_PASSES
                    ? o.withTolerance(Math.max(o.tolerance(), STAGE1_TOLERANCE)) : o, huber);
            if (!huber.ok()) {
                return new Core(huber, huber, h, gamma[0]);
            }
            if (pass + 1 < VARIANCE_PASSES) {
                h = varianceWeights(huber.residuals(), batchLevel, batches, o.scaleConstant(), gamma);
            }
        }
        Design weighted = unweighted.withPriorWeights(h);
        return new Core(bisquare(weighted, o, huber), huber, h, gamma[0]);
    }

    /**
     * The bisquare fit from {@code start}: a fit holding the scale, then the scale re-estimated as the
     * MAD of that fit's (prior-weight transformed) residuals and the fit repeated from it, until the
     * scale moves by at most {@link #SCALE_TOLERANCE} (relative). The fixed point is {@code MASS::rlm}'s with
     * {@code psi.bisquare} from the same start: coefficients that solve the bisquare equations at the
     * MAD of their own residuals. Holding the scale inside each fit makes every fit a descent of
     * {@code sum(rho)}; re-estimating it lets a fit that rejected contamination shed the scale the
     * Huber start inflated with it.
     *
     * @param weighted the design with prior weights
     * @param o the Huber options (the bisquare's constant replaces their k)
     * @param start a successful fit to start from
     * @return the bisquare fit
     */
    static HuberFit bisquare(Design weighted, FitOptions o, HuberFit start) {
        FitOptions b = o.bisquare();
        HuberFit fit = HuberRegression.fit(weighted, b, start);
        int iterations = fit.iterations();
        boolean converged = fit.converged();
        for (int round = 0; round < MAX_SCALE_ROUNDS && fit.ok(); round++) {
            double[] t = new double[weighted.size()];
            for (int i = 0; i < t.length; i++) {
                t[i] = Math.abs(Math.sqrt(weighted.prior(i)) * fit.residuals()[i]);
            }
            double scale = Select.median(t) / o.scaleConstant();
            if (!(scale > 0) || Math.abs(scale - fit.scale()) <= SCALE_TOLERANCE * fit.scale()) {
                return withIterations(fit, iterations, converged);
            }
            HuberFit next = HuberRegression.fit(weighted, b, new HuberFit(fit.theta(), fit.runIntercepts(), fit.beta(),
                    fit.active(), scale, fit.huberWeights(), fit.residuals(), true, 0, null));
            iterations += next.iterations();
            converged = next.converged();
            fit = next;
        }
        return withIterations(fit, iterations, false);
    }

    private static HuberFit withIterations(HuberFit f, int iterations, boolean converged) {
        return new HuberFit(f.theta(), f.runIntercepts(), f.beta(), f.active(), f.scale(), f.huberWeights(),
                f.residuals(), converged && f.converged(), iterations, f.failure());
    }

    /** Prior weights {@code (N/N0)^(-2 gamma)} of the fitted power-law scale; {@code gammaOut[0]} = gamma. */
    static double[] varianceWeights(double[] r, int[] level, int[] batches, double scaleConstant, double[] gammaOut) {
        int n = r.length;
        int levels = batches.length;
        double[] h = new double[n];
        java.util.Arrays.fill(h, 1.0);
        gammaOut[0] = Double.NaN;
        int[] count = new int[levels];
        for (int l : level) {
            count[l]++;
        }
        double[][] byLevel = new double[levels][];
        for (int l = 0; l < levels; l++) {
            byLevel[l] = new double[count[l]];
        }
        int[] fill = new int[levels];
        for (int i = 0; i < n; i++) {
            byLevel[level[i]][fill[level[i]]++] = Math.abs(r[i]);
        }
        // Weighted least squares of ln s on ln N over the usable batch sizes.
        double sw = 0;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        int used = 0;
        double logN0 = 0;
        for (int b : batches) {
            logN0 += Math.log(b);
        }
        logN0 /= Math.max(1, levels);
        for (int l = 0; l < levels; l++) {
            double s = count[l] >= MIN_VARIANCE_PAIRS ? Select.median(byLevel[l]) / scaleConstant : 0;
            if (!(s > 0)) {
                continue;
            }
            double w = count[l];
            double x = Math.log(batches[l]) - logN0;
            double y = Math.log(s);
            sw += w;
            sx += w * x;
            sy += w * y;
            sxx += w * x * x;
            sxy += w * x * y;
            used++;
        }
        double den = sw * sxx - sx * sx;
        if (used < 2 || !(den > 0)) {
            return h;
        }
        double gamma = (sw * sxy - sx * sy) / den;
        gammaOut[0] = gamma;
        double[] weight = new double[levels];
        for (int l = 0; l < levels; l++) {
            weight[l] = Math.exp(-2 * gamma * (Math.log(batches[l]) - logN0));
        }
        for (int i = 0; i < n; i++) {
            h[i] = weight[level[i]];
        }
        return h;
    }

    /**
     * The asymptotic variance of {@code theta} (the mean of the run intercepts) for the fit's psi, as
     * MASS's summary.rlm computes it (its default "XtX" method with the prior weights):
     * {@code kappa^2 / m1^2 * s^2 sum(psi(u)^2)/(n-p) * a' (X'HX)^-1 a}, with {@code m1} the mean of
     * {@code psi'(u)}. Within-run only: it knows nothing of run-to-run variation.
     *
     * @param d the design with the fit's prior weights
     * @param f the fit
     * @param o the options the fit used (its psi and tuning constant)
     * @return the variance, NaN when not computable
     */
    static double thetaVariance(Design d, HuberFit f, FitOptions o) {
        if (!f.ok()) {
            return Double.NaN;
        }
        int n = d.size();
        int runs = d.runs();
        int[] cols = f.activeColumns();
        int m = cols.length;
        int p = runs + m;
        if (n <= p) {
            return Double.NaN;
        }
        double[] xtx = new double[p * p];
        double sumPsi2 = 0;
        double sumD = 0;
        double sumD2 = 0;
        double k = o.k();
        for (int i = 0; i < n; i++) {
            double h = d.prior(i);
            int r = d.run()[i];
            xtx[r * p + r] += h;
            for (int a = 0; a < m; a++) {
                double xa = d.x()[cols[a]][i];
                xtx[(runs + a) * p + r] += h * xa;
                xtx[r * p + runs + a] += h * xa;
                for (int b = 0; b < m; b++) {
                    xtx[(runs + a) * p + runs + b] += h * xa * d.x()[cols[b]][i];
                }
            }
            double u = Math.sqrt(h) * f.residuals()[i] / f.scale();
            double psi = o.psi().psi(u, k);
            sumPsi2 += psi * psi;
            double deriv = o.psi().derivative(u, k);
            sumD += deriv;
            sumD2 += deriv * deriv;
        }
        double m1 = sumD / n;
        if (!(m1 > 0)) {
            return Double.NaN;
        }
        double varD = (sumD2 - n * m1 * m1) / (n - 1);
        double kappa = 1 + p * varD / (n * m1 * m1);
        double s2 = f.scale() * f.scale() * sumPsi2 / (n - p);
        double[] inv = Cholesky.inverse(xtx, p);
        if (inv == null) {
            return Double.NaN;
        }
        double q = 0;
        for (int a = 0; a < runs; a++) {
            for (int b = 0; b < runs; b++) {
                q += inv[a * p + b];
            }
        }
        q /= (double) runs * runs;
        return kappa * kappa / (m1 * m1) * s2 * q;
    }
}
