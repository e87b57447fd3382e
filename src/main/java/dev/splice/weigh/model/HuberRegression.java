package dev.splice.weigh.model;

/**
 * Robust M-estimation (Huber's or Tukey's bisquare psi, {@link FitOptions#psi}) by iteratively
 * reweighted least squares (a bisquare fit from a start keeps the start's scale: an MM-type step), specialised to "one intercept per run plus a few covariates": the run block of the normal equations is diagonal, so each weighted least
 * squares step eliminates it (Schur complement) and solves a system of the covariate count only.
 * This makes a fit cost O(n * covariates^2), which is what lets the bootstrap refit every context
 * a thousand times.
 *
 * <p>Prior (inverse-variance) weights {@code h} are handled as in {@code MASS::rlm(wt.method =
 * "inv.var")}: residuals are transformed by {@code sqrt(h)} before the scale and the robust weights
 * are computed, and the least-squares weights are {@code h * huberWeight}.
 */
final class HuberRegression {
    /** A covariate whose within-run variation is below this share of its raw sum of squares is dropped. */
    static final double COLLINEAR_TOLERANCE = 1e-9;
    /**
     * A robust scale below this share of the data's typical magnitude means more than half of the
     * pairs are fitted exactly (constant or quantized times): the Huber weights are then arbitrary.
     */
    static final double SCALE_FLOOR_REL = 1e-9;

    private HuberRegression() {}

    /**
     * @param d the design
     * @param o the psi, its constant, the scale constant and the stopping rule
     * @return the fit from least squares
     */
    static HuberFit fit(Design d, FitOptions o) {
        return fit(d, o, null);
    }

    /**
     * Like {@link #fit(Design, FitOptions)} but starting from the coefficients of {@code start} (a fit
     * of the same runs and columns, e.g. the unweighted preliminary fit) instead of least squares.
     * For Huber's psi the fixed point is the same; only the number of iterations changes. The
     * bisquare holds {@code start}'s scale throughout (see the class comment).
     *
     * @param d the design
     * @param o the psi, its constant, the scale constant and the stopping rule
     * @param start the fit to start from, or null for least squares
     * @return the fit
     */
    static HuberFit fit(Design d, FitOptions o, HuberFit start) {
        int n = d.size();
        int c = d.x().length;
        int runs = d.runs();
        double[] sqrtH = new double[n];
        double[] h = new double[n];
        double[] w = new double[n];
        for (int i = 0; i < n; i++) {
            h[i] = d.prior(i);
            sqrtH[i] = Math.sqrt(h[i]);
            w[i] = h[i];
        }
        // Positive prior weights do not change which columns are estimable: reuse the start's decision.
        boolean[] active = start != null && start.ok() && start.active().length == c ? start.active().clone()
                : activeColumns(d, w);
        int m = 0;
        for (boolean a : active) {
            m += a ? 1 : 0;
        }
        double[][] xa = new double[m][];
        for (int j = 0, q = 0; j < c; j++) {
            if (active[j]) {
                xa[q++] = d.x()[j];
            }
        }
        if (n <= runs + m) {
            return failed(c, runs, active, n, "too few pairs (" + n + ") for " + (runs + m) + " parameters");
        }
        Solver solver = new Solver(d.y(), d.run(), runs, xa);
        double[] ba = new double[m];
        double[] mu = new double[runs];
        double[] r = new double[n];
        double[] t = new double[n];
        double[] abs = new double[n];
        double[] hw = new double[n];
        java.util.Arrays.fill(hw, 1.0);
        if (start != null && start.ok() && start.runIntercepts().length == runs
                && java.util.Arrays.equals(start.active(), active)) {
            System.arraycopy(start.runIntercepts(), 0, mu, 0, runs);
            for (int j = 0, q = 0; j < c; j++) {
                if (active[j]) {
                    ba[q++] = start.beta()[j];
                }
            }
        } else if (!solver.solve(w, mu, ba)) {
            return failed(c, runs, active, n, "singular least-squares system");
        }
        solver.residuals(mu, ba, r);
        for (int i = 0; i < n; i++) {
            t[i] = sqrtH[i] * r[i];
        }
        double magnitude = 0;
        for (int i = 0; i < n; i++) {
            magnitude += sqrtH[i] * Math.abs(d.y()[i]);
        }
        double floor = SCALE_FLOOR_REL * magnitude / n;
        boolean converged = false;
        int iter = 0;
        double scale = Double.NaN;
        // The preliminary fit's scale is a good first guess: prior weights are normalised to it.
        double previousMedian = start != null && start.ok() ? start.scale() * o.scaleConstant() : Double.NaN;
        // A redescending psi keeps its start's scale (MM-estimation, Yohai 1987): IRLS then descends
        // sum(rho) monotonically, where a scale that moves with the rejected set can make it cycle.
        boolean fixedScale = o.psi() == FitOptions.Psi.BISQUARE && start != null && start.ok();
        double[] scratch = new double[n];
        double[] y = d.y();
        while (iter < o.maxIterations()) {
            iter++;
            if (fixedScale) {
                scale = start.scale();
            } else {
                for (int i = 0; i < n; i++) {
                    abs[i] = Math.abs(t[i]);
                }
                double med = Select.medianNear(abs, previousMedian, scratch);
                previousMedian = med;
                scale = med / o.scaleConstant();
            }
            if (!(scale > floor) || !Double.isFinite(scale)) {
                return failed(c, runs, active, n, "robust scale vanishes (more than half the pairs fit exactly)");
            }
            double k = o.k() * scale;
            FitOptions.Psi psi = o.psi();
            for (int i = 0; i < n; i++) {
                hw[i] = psi.weight(Math.abs(t[i]), k);
                w[i] = h[i] * hw[i];
            }
            if (!solver.solve(w, mu, ba)) {
                return failed(c, runs, active, n, "singular weighted least-squares system");
            }
            // New residuals and their root-relative change against the previous ones, in one pass.
            double num = 0;
            double den = 0;
            for (int i = 0; i < n; i++) {
                double ri = y[i] - solver.fitted(i, mu, ba);
                r[i] = ri;
                double ti = sqrtH[i] * ri;
                double old = t[i];
                double diff = old - ti;
                num += diff * diff;
                den += old * old;
                t[i] = ti;
            }
            if (Math.sqrt(num / Math.max(1e-20, den)) <= o.tolerance()) {
                converged = true;
                break;
            }
        }
        double[] beta = new double[c];
        for (int j = 0, q = 0; j < c; j++) {
            if (active[j]) {
                beta[j] = ba[q++];
            }
        }
        double theta = 0;
        for (double v : mu) {
            theta += v;
        }
        theta /= runs;
        return new HuberFit(theta, mu, beta, active, scale, hw, r, converged, iter, null);
    }

    private static HuberFit failed(int c, int runs, boolean[] active, int n, String why) {
        return new HuberFit(Double.NaN, new double[runs], new double[c], active, Double.NaN,
                new double[n], new double[n], false, 0, why);
    }

    /** Columns with real within-run variation, decided once from the prior-weighted design. */
    private static boolean[] activeColumns(Design d, double[] w) {
        int c = d.x().length;
        boolean[] active = new boolean[c];
        if (c == 0) {
            return active;
        }
        double[][] x = d.x();
        int n = d.size();
        int runs = d.runs();
        double[] sw = new double[runs];
        double[][] sx = new double[c][runs];
        double[] a = new double[c * c];
        for (int i = 0; i < n; i++) {
            int r = d.run()[i];
            sw[r] += w[i];
            for (int j = 0; j < c; j++) {
                double wx = w[i] * x[j][i];
                sx[j][r] += wx;
                for (int l = 0; l <= j; l++) {
                    a[j * c + l] += wx * x[l][i];
                }
            }
        }
        double[] raw = new double[c];
        for (int j = 0; j < c; j++) {
            raw[j] = a[j * c + j];
            for (int l = 0; l <= j; l++) {
                double s = 0;
                for (int r = 0; r < runs; r++) {
                    if (sw[r] > 0) {
                        s += sx[j][r] * sx[l][r] / sw[r];
                    }
                }
                a[j * c + l] -= s;
                a[l * c + j] = a[j * c + l];
            }
        }
        // Cholesky in column order, dropping a column whose pivot vanishes against its raw size.
        double[] chol = new double[c * c];
        for (int j = 0; j < c; j++) {
            double pivot = a[j * c + j];
            for (int q = 0; q < j; q++) {
                if (active[q]) {
                    pivot -= chol[j * c + q] * chol[j * c + q];
                }
            }
            if (!(pivot > COLLINEAR_TOLERANCE * Math.max(raw[j], Double.MIN_NORMAL))) {
                continue;
            }
            active[j] = true;
            double root = Math.sqrt(pivot);
            chol[j * c + j] = root;
            for (int l = j + 1; l < c; l++) {
                double v = a[l * c + j];
                for (int q = 0; q < j; q++) {
                    if (active[q]) {
                        v -= chol[l * c + q] * chol[j * c + q];
                    }
                }
                chol[l * c + j] = v / root;
            }
        }
        return active;
    }

    /** Weighted least squares for the run-intercept design, reusing its scratch arrays. */
    static final class Solver {
        private final double[] y;
        private final int[] run;
        private final int runs;
        private final double[] x;
        private final int m;
        /** Row ranges {@code [segment[r], segment[r+1])} of each run, or null when rows are not grouped. */
        private final int[] segment;
        private final double[] sw;
        private final double[] sy;
        private final double[] sx;
        private final double[] a;
        private final double[] b;

        Solver(double[] y, int[] run, int runs, double[][] columns) {
            this.y = y;
            this.run = run;
            this.runs = runs;
            this.m = columns.length;
            // Rows grouped by run (as bootstrap replicates are) let the step sum each run's block
            // in registers instead of scattering into per-run arrays.
            boolean grouped = true;
            for (int i = 1; i < y.length && grouped; i++) {
                grouped = run[i] == run[i - 1] || run[i] == run[i - 1] + 1;
            }
            if (grouped && y.length > 0 && run[0] == 0 && run[y.length - 1] == runs - 1) {
                segment = new int[runs + 1];
                for (int i = 0, r = 0; i < y.length; i++) {
                    while (r < run[i]) {
                        segment[++r] = i;
                    }
                }
                segment[runs] = y.length;
            } else {
                segment = null;
            }
            // Row-major copy: the accumulation loop reads one row at a time.
            this.x = new double[y.length * m];
            for (int j = 0; j < m; j++) {
                for (int i = 0; i < y.length; i++) {
                    x[i * m + j] = columns[j][i];
                }
            }
            sw = new double[runs];
            sy = new double[runs];
            sx = new double[runs * Math.max(m, 1)];
            a = new double[m * m];
            b = new double[m];
        }

        /** The fitted value of row i. */
        double fitted(int i, double[] mu, double[] beta) {
            double f = mu[run[i]];
            int row = i * m;
            for (int j = 0; j < m; j++) {
                f += beta[j] * x[row + j];
            }
            return f;
        }

        boolean solve(double[] w, double[] mu, double[] beta) {
            if (m == 3) {
                return solve3(w, mu, beta);
            }
            java.util.Arrays.fill(sw, 0);
            java.util.Arrays.fill(sy, 0);
            java.util.Arrays.fill(sx, 0);
            java.util.Arrays.fill(a, 0);
            java.util.Arrays.fill(b, 0);
            int n = y.length;
            for (int i = 0; i < n; i++) {
                int r = run[i];
                double wi = w[i];
                double wy = wi * y[i];
                sw[r] += wi;
                sy[r] += wy;
                int base = r * m;
                int row = i * m;
                for (int j = 0; j < m; j++) {
                    double wx = wi * x[row + j];
                    sx[base + j] += wx;
                    b[j] += wx * y[i];
                    for (int l = 0; l <= j; l++) {
                        a[j * m + l] += wx * x[row + l];
                    }
                }
            }
            for (int r = 0; r < runs; r++) {
                if (!(sw[r] > 0)) {
                    return false;
                }
                int base = r * m;
                double inv = 1.0 / sw[r];
                for (int j = 0; j < m; j++) {
                    double sj = sx[base + j] * inv;
                    b[j] -= sj * sy[r];
                    for (int l = 0; l <= j; l++) {
                        a[j * m + l] -= sj * sx[base + l];
                    }
                }
            }
            if (!Cholesky.solveLowerStored(a, b, m, beta)) {
                return false;
            }
            for (int r = 0; r < runs; r++) {
                double v = sy[r];
                int base = r * m;
                for (int j = 0; j < m; j++) {
                    v -= sx[base + j] * beta[j];
                }
                mu[r] = v / sw[r];
            }
            return true;
        }

        /** {@link #solve} unrolled for the usual three covariates (order, drift, batch). */
        private boolean solve3(double[] w, double[] mu, double[] beta) {
            if (segment != null) {
                return solve3Grouped(w, mu, beta);
            }
            java.util.Arrays.fill(sw, 0);
            java.util.Arrays.fill(sy, 0);
            java.util.Arrays.fill(sx, 0);
            double a00 = 0, a10 = 0, a11 = 0, a20 = 0, a21 = 0, a22 = 0, b0 = 0, b1 = 0, b2 = 0;
            int n = y.length;
            for (int i = 0; i < n; i++) {
                int r = run[i];
                double wi = w[i];
                double yi = y[i];
                double x0 = x[3 * i];
                double x1 = x[3 * i + 1];
                double x2 = x[3 * i + 2];
                double w0 = wi * x0;
                double w1 = wi * x1;
                double w2 = wi * x2;
                sw[r] += wi;
                sy[r] += wi * yi;
                sx[3 * r] += w0;
                sx[3 * r + 1] += w1;
                sx[3 * r + 2] += w2;
                a00 += w0 * x0;
                a10 += w1 * x0;
                a11 += w1 * x1;
                a20 += w2 * x0;
                a21 += w2 * x1;
                a22 += w2 * x2;
                b0 += w0 * yi;
                b1 += w1 * yi;
                b2 += w2 * yi;
            }
            for (int r = 0; r < runs; r++) {
                if (!(sw[r] > 0)) {
                    return false;
                }
                double inv = 1.0 / sw[r];
                double s0 = sx[3 * r] * inv;
                double s1 = sx[3 * r + 1] * inv;
                double s2 = sx[3 * r + 2] * inv;
                a00 -= s0 * sx[3 * r];
                a10 -= s1 * sx[3 * r];
                a11 -= s1 * sx[3 * r + 1];
                a20 -= s2 * sx[3 * r];
                a21 -= s2 * sx[3 * r + 1];
                a22 -= s2 * sx[3 * r + 2];
                b0 -= s0 * sy[r];
                b1 -= s1 * sy[r];
                b2 -= s2 * sy[r];
            }
            return solveReduced3(a00, a10, a11, a20, a21, a22, b0, b1, b2, mu, beta);
        }

        private boolean solve3Grouped(double[] w, double[] mu, double[] beta) {
            double a00 = 0, a10 = 0, a11 = 0, a20 = 0, a21 = 0, a22 = 0, b0 = 0, b1 = 0, b2 = 0;
            for (int r = 0; r < runs; r++) {
                double rw = 0, ry = 0, r0 = 0, r1 = 0, r2 = 0;
                for (int i = segment[r]; i < segment[r + 1]; i++) {
                    double wi = w[i];
                    double yi = y[i];
                    double x0 = x[3 * i];
                    double x1 = x[3 * i + 1];
                    double x2 = x[3 * i + 2];
                    double w0 = wi * x0;
                    double w1 = wi * x1;
                    double w2 = wi * x2;
                    rw += wi;
                    ry += wi * yi;
                    r0 += w0;
                    r1 += w1;
                    r2 += w2;
                    a00 += w0 * x0;
                    a10 += w1 * x0;
                    a11 += w1 * x1;
                    a20 += w2 * x0;
                    a21 += w2 * x1;
                    a22 += w2 * x2;
                    b0 += w0 * yi;
                    b1 += w1 * yi;
                    b2 += w2 * yi;
                }
                if (!(rw > 0)) {
                    return false;
                }
                sw[r] = rw;
                sy[r] = ry;
                sx[3 * r] = r0;
                sx[3 * r + 1] = r1;
                sx[3 * r + 2] = r2;
                double inv = 1.0 / rw;
                a00 -= r0 * inv * r0;
                a10 -= r1 * inv * r0;
                a11 -= r1 * inv * r1;
                a20 -= r2 * inv * r0;
                a21 -= r2 * inv * r1;
                a22 -= r2 * inv * r2;
                b0 -= r0 * inv * ry;
                b1 -= r1 * inv * ry;
                b2 -= r2 * inv * ry;
            }
            return solveReduced3(a00, a10, a11, a20, a21, a22, b0, b1, b2, mu, beta);
        }

        /**
         * Solves the 3x3 normal equations left after the run intercepts were eliminated (lower
         * triangle given), then recovers each run's intercept from its weighted sums.
         */
        private boolean solveReduced3(double a00, double a10, double a11, double a20, double a21, double a22,
                double b0, double b1, double b2, double[] mu, double[] beta) {
            a[0] = a00;
            a[3] = a10;
            a[4] = a11;
            a[6] = a20;
            a[7] = a21;
            a[8] = a22;
            b[0] = b0;
            b[1] = b1;
            b[2] = b2;
            if (!Cholesky.solveLowerStored(a, b, 3, beta)) {
                return false;
            }
            for (int r = 0; r < runs; r++) {
                mu[r] = (sy[r] - sx[3 * r] * beta[0] - sx[3 * r + 1] * beta[1] - sx[3 * r + 2] * beta[2]) / sw[r];
            }
            return true;
        }

        void residuals(double[] mu, double[] beta, double[] out) {
            int n = y.length;
            for (int i = 0; i < n; i++) {
                double f = mu[run[i]];
                int row = i * m;
                for (int j = 0; j < m; j++) {
                    f += beta[j] * x[row + j];
                }
                out[i] = y[i] - f;
            }
        }
    }
}
