package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Simultaneous intervals by max-standardized deviation: with {@code s_k} the bootstrap standard
 * deviation of estimate k, {@code M_b = max_k |theta_k^(b) - theta_k| / s_k}, {@code c} the
 * {@code level} quantile of the M_b (order statistic {@code ceil(level (B+1))}), and the interval
 * {@code theta_k +- c s_k}. A replicate is valid when every included estimate is finite in it.
 *
 * @param se bootstrap standard deviations (NaN for excluded estimates)
 * @param critical c
 * @param valid number of valid replicates
 * @param critical99 c and s from the first 99 valid replicates (NaN with fewer)
 * @param widthRatio per estimate: width with all replicates / width with the first 99
 * @param probabilityMcSe Monte Carlo SE of the coverage probability of the quantile, sqrt(p(1-p)/B)
 * @param criticalMcSe Monte Carlo SE of c from the binomial order-statistic interval
 * @param convergence rows {replicates used, c}
 */
record SimultaneousBand(double[] se, double critical, int valid, double critical99, double[] widthRatio,
        double probabilityMcSe, double criticalMcSe, List<double[]> convergence) {
    static final double LEVEL = 0.95;
    /** Replicates of the preliminary run the width ratio compares with (the seed's 99-replicate pre-check). */
    static final int PRELIMINARY_REPLICATES = 99;

    /** @param reps {@code [b][k]}; @param include estimates that take part (identifiable ones) */
    static SimultaneousBand compute(double[] est, double[][] reps, boolean[] include) {
        int k = est.length;
        List<double[]> validReps = new ArrayList<>();
        for (double[] r : reps) {
            boolean ok = true;
            for (int j = 0; j < k; j++) {
                ok &= !include[j] || Double.isFinite(r[j]);
            }
            if (ok) {
                validReps.add(r);
            }
        }
        int b = validReps.size();
        double[] se = sd(validReps, b, include);
        double c = critical(est, validReps, b, se, include);
        double c99 = Double.NaN;
        double[] ratio = new double[k];
        Arrays.fill(ratio, Double.NaN);
        if (b >= PRELIMINARY_REPLICATES) {
            double[] se99 = sd(validReps, PRELIMINARY_REPLICATES, include);
            c99 = critical(est, validReps, PRELIMINARY_REPLICATES, se99, include);
            for (int j = 0; j < k; j++) {
                if (include[j] && se99[j] > 0) {
                    ratio[j] = c * se[j] / (c99 * se99[j]);
                }
            }
        }
        List<double[]> convergence = new ArrayList<>();
        for (int m : new int[] {20, 50, 99, 150, 200, 300, 400, 500, 600, 700, 800, 900, 999, 1500, 2000, 5000}) {
            if (m < b) {
                convergence.add(new double[] {m, critical(est, validReps, m, sd(validReps, m, include), include)});
            }
        }
        if (b > 0) {
            convergence.add(new double[] {b, c});
        }
        double pSe = b > 0 ? Math.sqrt(LEVEL * (1 - LEVEL) / b) : Double.NaN;
        return new SimultaneousBand(se, c, b, c99, ratio, pSe, criticalSe(est, validReps, b, se, include), convergence);
    }

    private static double[] sd(List<double[]> reps, int m, boolean[] include) {
        int k = include.length;
        double[] out = new double[k];
        for (int j = 0; j < k; j++) {
            if (!include[j] || m < 2) {
                out[j] = Double.NaN;
                continue;
            }
            double mean = 0;
            for (int b = 0; b < m; b++) {
                mean += reps.get(b)[j];
            }
            mean /= m;
            double ss = 0;
            for (int b = 0; b < m; b++) {
                double d = reps.get(b)[j] - mean;
                ss += d * d;
            }
            out[j] = Math.sqrt(ss / (m - 1));
        }
        return out;
    }

    private static double[] maxStatistics(double[] est, List<double[]> reps, int m, double[] se, boolean[] include) {
        double[] max = new double[m];
        for (int b = 0; b < m; b++) {
            double v = 0;
            double[] r = reps.get(b);
            for (int j = 0; j < est.length; j++) {
                if (include[j] && se[j] > 0) {
                    v = Math.max(v, Math.abs(r[j] - est[j]) / se[j]);
                }
            }
            max[b] = v;
        }
        Arrays.sort(max);
        return max;
    }

    /** The order statistic ceil(LEVEL (m+1)) of the max statistics of the first m replicates. */
    private static double critical(double[] est, List<double[]> reps, int m, double[] se, boolean[] include) {
        if (m < 2) {
            return Double.NaN;
        }
        double[] max = maxStatistics(est, reps, m, se, include);
        int j = (int) Math.ceil(LEVEL * (m + 1));
        return max[Math.min(m, Math.max(1, j)) - 1];
    }

    private static double criticalSe(double[] est, List<double[]> reps, int m, double[] se, boolean[] include) {
        if (m < 20) {
            return Double.NaN;
        }
        double[] max = maxStatistics(est, reps, m, se, include);
        double half = 1.959963984540054 * Math.sqrt(m * LEVEL * (1 - LEVEL));
        int lo = (int) Math.max(1, Math.floor(m * LEVEL - half));
        int hi = (int) Math.min(m, Math.ceil(m * LEVEL + half));
        return (max[hi - 1] - max[lo - 1]) / (2 * 1.959963984540054);
    }
}
