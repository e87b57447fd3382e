package dev.splice.weigh.model;

/**
 * Per-run pseudo-values of a fit: numbers {@code phi_r}, one per run, with {@code estimate - truth ~
 * mean_r phi_r}. Runs are the independent units of a campaign, so the spread of the {@code phi_r}
 * carries both the within-run error and the run-to-run variation, and {@code sd(phi) / sqrt(R)} is
 * the standard error (equal to CR2's for a mean of R run values).
 *
 * <p>For theta (the mean of the run intercepts {@code mu_r}) the pseudo-value is the run's deviation
 * plus the effect of the run on the shared covariate coefficients. With the M-estimator's Jacobian
 * weights {@code D = prior * psi'(u)}, their run means {@code xbar_r} of the covariates,
 * {@code xbar = mean_r xbar_r}, {@code J = sum_i D_i (x_i - xbar_r)(x_i - xbar_r)'} and the run's
 * score {@code S_r = sum_{i in r} v_i e_i (x_i - xbar_r)} ({@code v = prior * psi(u)/u}, the final
 * IRLS weights, so {@code v e = s sqrt(prior) psi(u)}),
 * <pre>phi_r = (mu_r - theta) - R xbar' J^-1 S_r,    phi_r(beta) = R J^-1 S_r.</pre>
 * The second term matters for the window term {@code 1/N}: theta extrapolates to {@code 1/N = 0}, so
 * the uncertainty of the per-window cost is part of theta's.
 */
final class RunValues {
    private RunValues() {}

    /**
     * @param d the design the fit used (prior weights included)
     * @param f a successful fit of it
     * @param o the options of the fit (its psi for {@code psi'})
     * @return {@code [1 + covariates][d.runs()]}: row 0 theta, row 1 + j covariate j (NaN rows for
     *     inactive covariates); or null when the information matrix is singular
     */
    static double[][] of(Design d, HuberFit f, FitOptions o) {
        double[][] out = of(d, f, o, true);
        // psi' of the bisquare is negative beyond c / sqrt(5): in a pathological fit J may then not
        // be positive definite, and the IRLS weights (a fixed-weight linearization) stand in.
        return out != null ? out : of(d, f, o, false);
    }

    private static double[][] of(Design d, HuberFit f, FitOptions o, boolean derivative) {
        int n = d.size();
        int runs = d.runs();
        int c = d.x().length;
        int[] cols = f.activeColumns();
        int m = cols.length;
        double[] v = new double[n];
        double[] jw = new double[n];
        double[] vr = new double[runs];
        double[][] xbar = new double[runs][m];
        for (int i = 0; i < n; i++) {
            v[i] = d.prior(i) * f.huberWeights()[i];
            double u = Math.sqrt(d.prior(i)) * f.residuals()[i] / f.scale();
            jw[i] = derivative ? d.prior(i) * o.psi().derivative(u, o.k()) : v[i];
            int r = d.run()[i];
            vr[r] += jw[i];
            for (int a = 0; a < m; a++) {
                xbar[r][a] += jw[i] * d.x()[cols[a]][i];
            }
        }
        for (int r = 0; r < runs; r++) {
            if (!(vr[r] > 0)) {
                return null;
            }
            for (int a = 0; a < m; a++) {
                xbar[r][a] /= vr[r];
            }
        }
        double[] jm = new double[m * m];
        double[][] score = new double[runs][m];
        double[] dx = new double[m];
        for (int i = 0; i < n; i++) {
            int r = d.run()[i];
            for (int a = 0; a < m; a++) {
                dx[a] = d.x()[cols[a]][i] - xbar[r][a];
                score[r][a] += v[i] * dx[a] * f.residuals()[i];
            }
            for (int a = 0; a < m; a++) {
                for (int b = 0; b < m; b++) {
                    jm[a * m + b] += jw[i] * dx[a] * dx[b];
                }
            }
        }
        double[] inv = m == 0 ? new double[0] : Cholesky.inverse(jm, m);
        if (inv == null) {
            return null;
        }
        double[] mean = new double[m];
        for (int r = 0; r < runs; r++) {
            for (int a = 0; a < m; a++) {
                mean[a] += xbar[r][a] / runs;
            }
        }
        double[][] out = new double[1 + c][runs];
        for (int j = 0; j < c; j++) {
            if (!f.active()[j]) {
                java.util.Arrays.fill(out[1 + j], Double.NaN);
            }
        }
        for (int r = 0; r < runs; r++) {
            double correction = 0;
            for (int a = 0; a < m; a++) {
                double g = 0;
                for (int b = 0; b < m; b++) {
                    g += inv[a * m + b] * score[r][b];
                }
                out[1 + cols[a]][r] = runs * g;
                correction += mean[a] * runs * g;
            }
            out[0][r] = f.runIntercepts()[r] - f.theta() - correction;
        }
        return out;
    }

    /** {@code sqrt(sum (phi - mean)^2 / (n (n - 1)))} over the finite values; NaN with fewer than two. */
    static double standardError(double[] phi) {
        int n = 0;
        double sum = 0;
        for (double p : phi) {
            if (Double.isFinite(p)) {
                n++;
                sum += p;
            }
        }
        if (n < 2) {
            return Double.NaN;
        }
        double mean = sum / n;
        double ss = 0;
        for (double p : phi) {
            if (Double.isFinite(p)) {
                ss += (p - mean) * (p - mean);
            }
        }
        return Math.sqrt(ss / ((double) n * (n - 1)));
    }

    /** The number of finite values. */
    static int count(double[] phi) {
        int n = 0;
        for (double p : phi) {
            n += Double.isFinite(p) ? 1 : 0;
        }
        return n;
    }
}
