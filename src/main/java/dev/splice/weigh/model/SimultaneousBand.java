package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * The family-wise 95% band, {@code estimate_j +- c_j se_j}, with {@code se_j} from the run
 * pseudo-values and {@code c_j} a Student-t critical value with {@code R_j - 1} degrees of freedom
 * at a per-estimate level {@code alpha} that the wild cluster bootstrap ({@link Bootstrap}) calibrates
 * for the dependence between estimates:
 * <ol>
 *   <li>{@code M_b = max_j |t*_bj|}, and {@code c*} its order statistic {@code ceil(0.95 (B+1))}: the
 *       bootstrap's own family-wise critical value;
 *   <li>{@code alpha} = the share of all {@code |t*_bj|} (every replicate, every estimate) above
 *       {@code c*}: the per-estimate tail probability that makes the family-wise level 95% under the
 *       bootstrap's joint distribution (about {@code 1 - 0.95^(1/K)} for independent estimates, 0.05
 *       when they all move together);
 *   <li>{@code c_j = t_{R_j - 1}} quantile at {@code 1 - alpha/2}.
 * </ol>
 * The bootstrap thus decides only how many independent estimates the family is worth; the tails come
 * from Student's t, which a bootstrap over 12 runs cannot reproduce that far out (its own {@code c*}
 * undercovers, docs/weigh-model.md section 3).
 *
 * @param se standard errors (NaN for estimates without one)
 * @param df degrees of freedom of each estimate (runs with pseudo-values - 1)
 * @param criticalOf {@code c_j}
 * @param alpha the calibrated per-estimate level
 * @param critical {@code c} for the campaign's run count (R - 1 degrees of freedom)
 * @param bootstrapCritical {@code c*}
 * @param valid replicates used
 * @param critical99 {@code c} from the first 99 replicates (NaN with fewer)
 * @param widthRatio per estimate: width with all replicates / width with the first 99
 * @param probabilityMcSe Monte Carlo SE of the coverage probability of the quantile, sqrt(p(1-p)/B)
 * @param criticalMcSe Monte Carlo SE of c from the binomial order-statistic interval of {@code c*}
 * @param convergence rows {replicates used, c}
 */
record SimultaneousBand(double[] se, int[] df, double[] criticalOf, double alpha, double critical,
        double bootstrapCritical, int valid, double critical99, double[] widthRatio, double probabilityMcSe,
        double criticalMcSe, List<double[]> convergence) {
    /** The family-wise coverage level. */
    static final double LEVEL = 0.95;
    /** Replicates of the preliminary run the width ratio compares with (the seed's 99-replicate pre-check). */
    static final int PRELIMINARY_REPLICATES = 99;

    /** @return the number of independent estimates the family is worth: {@code ln 0.95 / ln(1 - alpha)} */
    double effectiveEstimates() {
        return Math.log(LEVEL) / Math.log1p(-alpha);
    }

    /**
     * @param phi {@code [j][run]} run pseudo-values of each estimate
     * @param include estimates that take part (identifiable ones)
     * @param runs the campaign's run count
     * @param replicates B
     * @param seed bootstrap seed
     * @param progress receives the number of finished replicates
     * @return the band
     */
    static SimultaneousBand compute(double[][] phi, boolean[] include, int runs, int replicates, long seed,
            IntConsumer progress) {
        int k = phi.length;
        double[] se = new double[k];
        int[] df = new int[k];
        boolean[] use = new boolean[k];
        int used = 0;
        for (int j = 0; j < k; j++) {
            se[j] = include[j] ? RunValues.standardError(phi[j]) : Double.NaN;
            df[j] = include[j] ? RunValues.count(phi[j]) - 1 : 0;
            use[j] = se[j] > 0;
            used += use[j] ? 1 : 0;
        }
        double[][] t = Bootstrap.studentized(phi, use, replicates, seed, progress);
        double[] max = new double[replicates];
        for (int b = 0; b < replicates; b++) {
            for (int j = 0; j < k; j++) {
                max[b] = Math.max(max[b], t[b][j]);
            }
        }
        double cStar = orderStatistic(max, replicates);
        double alpha = alpha(t, replicates, used, cStar);
        double[] crit = new double[k];
        for (int j = 0; j < k; j++) {
            crit[j] = include[j] && df[j] >= 1 ? Distributions.studentCritical(alpha, df[j]) : Double.NaN;
        }
        double c = Distributions.studentCritical(alpha, runs - 1);
        double c99 = Double.NaN;
        double[] ratio = new double[k];
        Arrays.fill(ratio, Double.NaN);
        if (replicates >= PRELIMINARY_REPLICATES) {
            double a99 = alpha(t, PRELIMINARY_REPLICATES, used, orderStatistic(max, PRELIMINARY_REPLICATES));
            c99 = Distributions.studentCritical(a99, runs - 1);
            for (int j = 0; j < k; j++) {
                if (use[j] && df[j] >= 1) {
                    ratio[j] = crit[j] / Distributions.studentCritical(a99, df[j]);
                }
            }
        }
        List<double[]> convergence = new ArrayList<>();
        for (int m : new int[] {20, 50, 99, 150, 200, 300, 400, 500, 600, 700, 800, 900, 999, 1500, 2000, 5000}) {
            if (m < replicates) {
                double a = alpha(t, m, used, orderStatistic(max, m));
                convergence.add(new double[] {m, Distributions.studentCritical(a, runs - 1)});
            }
        }
        convergence.add(new double[] {replicates, c});
        double pSe = Math.sqrt(LEVEL * (1 - LEVEL) / replicates);
        return new SimultaneousBand(se, df, crit, alpha, c, cStar, replicates, c99, ratio, pSe,
                criticalSe(t, max, used, runs), convergence);
    }

    /** The order statistic ceil(LEVEL (m+1)) of the first m values. */
    private static double orderStatistic(double[] values, int m) {
        double[] v = Arrays.copyOf(values, m);
        Arrays.sort(v);
        int j = (int) Math.ceil(LEVEL * (m + 1));
        return v[Math.min(m, Math.max(1, j)) - 1];
    }

    /** The share of {@code |t*|} of the first m replicates above {@code c}, over the estimates in use. */
    private static double alpha(double[][] t, int m, int used, double c) {
        if (used == 0) {
            return 1 - LEVEL;
        }
        long above = 0;
        for (int b = 0; b < m; b++) {
            for (double v : t[b]) {
                above += v > c ? 1 : 0;
            }
        }
        // At least the replicates whose maximum lies above c exceed it: alpha > 0 always.
        return Math.max(above, 1) / ((double) m * used);
    }

    private static double criticalSe(double[][] t, double[] max, int used, int runs) {
        int m = max.length;
        if (m < 20) {
            return Double.NaN;
        }
        double[] sorted = max.clone();
        Arrays.sort(sorted);
        double half = 1.959963984540054 * Math.sqrt(m * LEVEL * (1 - LEVEL));
        int lo = (int) Math.max(1, Math.floor(m * LEVEL - half));
        int hi = (int) Math.min(m, Math.ceil(m * LEVEL + half));
        double cLo = Distributions.studentCritical(alpha(t, m, used, sorted[lo - 1]), runs - 1);
        double cHi = Distributions.studentCritical(alpha(t, m, used, sorted[hi - 1]), runs - 1);
        return Math.abs(cHi - cLo) / (2 * 1.959963984540054);
    }
}
