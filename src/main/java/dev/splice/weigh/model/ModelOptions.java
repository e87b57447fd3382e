package dev.splice.weigh.model;

import java.util.function.IntConsumer;

/**
 * How {@link WeighModel#run} fits a campaign.
 *
 * @param replicates bootstrap replicates (B), from {@link #MIN_REPLICATES} to {@link #MAX_REPLICATES}
 * @param seed the bootstrap seed: the same seed gives the same result
 * @param threads worker threads of the bootstrap (the result does not depend on it)
 * @param fit how each Huber IRLS fit is computed
 * @param progress receives the number of finished replicates (from worker threads)
 */
public record ModelOptions(int replicates, long seed, int threads, FitOptions fit, IntConsumer progress) {
    /** Replicates of {@link #defaults()}. */
    public static final int DEFAULT_REPLICATES = 999;
    /** Seed of {@link #defaults()}. */
    public static final long DEFAULT_SEED = 20260809L;
    /** Fewer replicates cannot place a 95% quantile of the max statistic. */
    public static final int MIN_REPLICATES = 19;
    /**
     * More replicates add nothing a user can see (the critical value's Monte Carlo error at 99,999 is
     * about 0.1% of it) and would size the replicate table by a number from the command line.
     */
    public static final int MAX_REPLICATES = 99_999;
    /** The replicate table ({@code B x contexts} doubles) may take at most this many bytes. */
    public static final long MAX_TABLE_BYTES = 512L << 20;

    /**
     * The defaults: 999 replicates, seed 20260809, one thread per processor, Splice's fit settings,
     * no progress.
     *
     * @return the default options
     */
    public static ModelOptions defaults() {
        return new ModelOptions(DEFAULT_REPLICATES, DEFAULT_SEED, Runtime.getRuntime().availableProcessors(),
                FitOptions.SPLICE, b -> {});
    }

    /**
     * These options with another number of replicates.
     *
     * @param b bootstrap replicates
     * @return the changed options
     */
    public ModelOptions withReplicates(int b) {
        return new ModelOptions(b, seed, threads, fit, progress);
    }

    /**
     * These options with another seed.
     *
     * @param s bootstrap seed
     * @return the changed options
     */
    public ModelOptions withSeed(long s) {
        return new ModelOptions(replicates, s, threads, fit, progress);
    }

    /**
     * These options with a progress receiver.
     *
     * @param p receives the number of finished replicates
     * @return the changed options
     */
    public ModelOptions withProgress(IntConsumer p) {
        return new ModelOptions(replicates, seed, threads, fit, p);
    }

    /**
     * These options with another number of worker threads.
     *
     * @param t bootstrap worker threads
     * @return the changed options
     */
    public ModelOptions withThreads(int t) {
        return new ModelOptions(replicates, seed, t, fit, progress);
    }
}
