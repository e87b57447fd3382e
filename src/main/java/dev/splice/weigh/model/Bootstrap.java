package dev.splice.weigh.model;

import java.util.SplittableRandom;
import java.util.function.IntConsumer;

/**
 * Wild cluster bootstrap over runs with Webb's six-point weights. Replicate b draws one weight
 * {@code w_r} per campaign run, shared by every estimate (so replicates keep the dependence between
 * contexts that comes from sharing runs), and studentizes each estimate by its own replicate
 * standard error: with run pseudo-values {@code phi_r} (see {@link RunValues}),
 * <pre>t*_j = mean_r(w_r phi_jr) / (sd_r(w_r phi_jr) / sqrt(R_j)).</pre>
 * Nothing is refitted: the pseudo-values linearize each estimate in its runs. Replicate b uses its
 * own generator seeded from (seed, b), so the result does not depend on scheduling.
 */
final class Bootstrap {
    /** Webb (2014): +-sqrt(1/2), +-1, +-sqrt(3/2), each with probability 1/6 (mean 0, variance 1). */
    static final double[] WEBB = {-Math.sqrt(1.5), -1, -Math.sqrt(0.5), Math.sqrt(0.5), 1, Math.sqrt(1.5)};

    private Bootstrap() {}

    /**
     * @param phi {@code [j][run]} pseudo-values of each estimate (NaN for runs it lacks)
     * @param use which estimates take part
     * @param replicates B
     * @param seed the seed
     * @param progress receives the number of finished replicates
     * @return {@code |t*|} as {@code [b][j]} (0 for estimates that do not take part)
     */
    static double[][] studentized(double[][] phi, boolean[] use, int replicates, long seed, IntConsumer progress) {
        int k = phi.length;
        int runs = k == 0 ? 0 : phi[0].length;
        double[][] out = new double[replicates][k];
        double[] w = new double[runs];
        for (int b = 0; b < replicates; b++) {
            SplittableRandom rng = new SplittableRandom(mix(seed, b));
            for (int r = 0; r < runs; r++) {
                w[r] = WEBB[rng.nextInt(WEBB.length)];
            }
            for (int j = 0; j < k; j++) {
                if (use[j]) {
                    out[b][j] = Math.abs(t(phi[j], w));
                }
            }
            progress.accept(b + 1);
        }
        return out;
    }

    /** The studentized mean of {@code w_r phi_r} over the runs where phi is finite. */
    private static double t(double[] phi, double[] w) {
        double sum = 0;
        int n = 0;
        for (int r = 0; r < phi.length; r++) {
            if (Double.isFinite(phi[r])) {
                sum += w[r] * phi[r];
                n++;
            }
        }
        double mean = sum / n;
        double ss = 0;
        for (int r = 0; r < phi.length; r++) {
            if (Double.isFinite(phi[r])) {
                double d = w[r] * phi[r] - mean;
                ss += d * d;
            }
        }
        double se = Math.sqrt(ss / ((double) n * (n - 1)));
        return se > 0 ? mean / se : 0;
    }

    /** Stafford's mix13 of (seed, replicate): well-separated streams for neighbouring replicates. */
    static long mix(long seed, int b) {
        long z = seed + 0x9E3779B97F4A7C15L * (b + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
