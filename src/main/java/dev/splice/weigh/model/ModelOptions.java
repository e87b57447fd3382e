package dev.splice.weigh.model;

import java.util.function.IntConsumer;

/**
 * @param replicates bootstrap replicates (B)
 * @param threads worker threads of the bootstrap (the result does not depend on it)
 * @param progress receives the number of finished replicates (from worker threads)
 */
public record ModelOptions(int replicates, long seed, int threads, FitOptions fit, IntConsumer progress) {
    public static final int DEFAULT_REPLICATES = 999;
    public static final long DEFAULT_SEED = 20260809L;
    /** Fewer replicates cannot place a 95% quantile of the max statistic. */
    public static final int MIN_REPLICATES = 19;

    public static ModelOptions defaults() {
        return new ModelOptions(DEFAULT_REPLICATES, DEFAULT_SEED, Runtime.getRuntime().availableProcessors(),
                FitOptions.SPLICE, b -> {});
    }

    public ModelOptions withReplicates(int b) {
        return new ModelOptions(b, seed, threads, fit, progress);
    }

    public ModelOptions withSeed(long s) {
        return new ModelOptions(replicates, s, threads, fit, progress);
    }

    public ModelOptions withProgress(IntConsumer p) {
        return new ModelOptions(replicates, seed, threads, fit, p);
    }

    public ModelOptions withThreads(int t) {
        return new ModelOptions(replicates, seed, t, fit, progress);
    }
}
