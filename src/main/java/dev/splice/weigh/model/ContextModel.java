package dev.splice.weigh.model;

/**
 * The complete per-context fit, the same on the data and in every bootstrap replicate:
 * <ol>
 *   <li>a preliminary unweighted Huber fit;
 *   <li>heteroscedastic weights: per batch size the MAD variance of the preliminary residuals,
 *       shrunk toward the global MAD variance as if the global value were worth {@link #SHRINK_PAIRS}
 *       extra pairs; the prior weight of a pair is global variance / its batch's shrunk variance;
 *   <li>the final Huber fit with those prior weights, started from the preliminary coefficients.
 * </ol>
 */
final class ContextModel {
    /** Pseudo-count of the global variance in the per-batch variance shrinkage. */
    static final double SHRINK_PAIRS = 30;
    /** The preliminary fit only feeds the weights; it need not be iterated as far as the final one. */
    static final double STAGE1_TOLERANCE = 1e-2;

    private ContextModel() {}

    /** The final fit and the prior weights it used. */
    record Core(HuberFit fit, double[] prior) {}

    static Core fit(Design unweighted, int[] batchLevel, int levels, FitOptions o) {
        HuberFit stage1 = HuberRegression.fit(unweighted, o.withTolerance(Math.max(o.tolerance(), STAGE1_TOLERANCE)));
        if (!stage1.ok()) {
            return new Core(stage1, null);
        }
        double[] h = heteroscedasticWeights(stage1.residuals(), batchLevel, levels, o.scaleConstant());
        return new Core(HuberRegression.fit(unweighted.withPriorWeights(h), o, stage1), h);
    }

    static double[] heteroscedasticWeights(double[] r, int[] level, int levels, double scaleConstant) {
        int n = r.length;
        double[] abs = new double[n];
        for (int i = 0; i < n; i++) {
            abs[i] = Math.abs(r[i]);
        }
        double global = Select.median(abs) / scaleConstant;
        double[] h = new double[n];
        java.util.Arrays.fill(h, 1.0);
        if (levels <= 1 || !(global > 0)) {
            return h;
        }
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
        double g2 = global * global;
        double[] weight = new double[levels];
        for (int l = 0; l < levels; l++) {
            double s = count[l] == 0 ? global : Select.median(byLevel[l]) / scaleConstant;
            double shrunk = (count[l] * s * s + SHRINK_PAIRS * g2) / (count[l] + SHRINK_PAIRS);
            weight[l] = g2 / shrunk;
        }
        for (int i = 0; i < n; i++) {
            h[i] = weight[level[i]];
        }
        return h;
    }

    /**
     * Huber's asymptotic variance of {@code a' beta} for the full parameter vector (run intercepts,
     * then active covariates), as MASS's summary.rlm computes it (its default "XtX" method with the
     * prior weights): {@code kappa^2 / m1^2 * s^2 sum(psi(u)^2)/(n-p) * a' (X'HX)^-1 a}.
     */
    static double thetaVariance(Design d, HuberFit f, FitOptions o) {
        if (!f.ok()) {
            return Double.NaN;
        }
        int n = d.size();
        int runs = d.runs();
        int c = d.x().length;
        int[] cols = new int[c];
        int m = 0;
        for (int j = 0; j < c; j++) {
            if (f.active()[j]) {
                cols[m++] = j;
            }
        }
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
            double psi = Math.max(-k, Math.min(k, u));
            sumPsi2 += psi * psi;
            double deriv = Math.abs(u) <= k ? 1 : 0;
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
