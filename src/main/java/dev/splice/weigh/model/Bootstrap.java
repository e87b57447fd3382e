package dev.splice.weigh.model;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Run-cluster moving-block bootstrap. A replicate draws the campaign's runs with replacement; within
 * each drawn run it draws circular blocks of {@link #BLOCK_ROUNDS} consecutive probe rounds until it
 * has as many rounds as the run; every context is then refitted completely on the pairs of those
 * runs and rounds (each drawn run is a separate run label). One draw serves all contexts, so the
 * replicates carry the joint distribution. Replicate b uses its own generator seeded from (seed, b):
 * the result does not depend on the number of threads or on scheduling.
 */
final class Bootstrap {
    /** Probe rounds per moving block. */
    static final int BLOCK_ROUNDS = 4;

    /**
     * Replicates stop at a residual change of 1e-6 at the tightest (the data fit uses 1e-10): a
     * replicate's estimate then sits within about 1e-6 of the residual scale of its fixed point,
     * some 1e-5 of the bootstrap spread it feeds, and each replicate needs a third fewer iterations.
     */
    static final double REPLICATE_TOLERANCE = 1e-6;

    private Bootstrap() {}

    static FitOptions replicateOptions(FitOptions o) {
        return o.withTolerance(Math.max(o.tolerance(), REPLICATE_TOLERANCE));
    }

    /**
     * @param theta {@code [b][k]} contrast estimates (NaN where the fit failed)
     * @param beta {@code [b][k][j]} nuisance coefficients (order, drift, batch)
     */
    record Replicates(double[][] theta, double[][][] beta) {
        int count() {
            return theta.length;
        }
    }

    static Replicates run(CampaignData data, List<ContextData> contexts, int replicates, long seed,
            FitOptions o, int threads, IntConsumer progress) {
        int k = contexts.size();
        double[][] theta = new double[replicates][];
        double[][][] beta = new double[replicates][][];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        int workers = Math.max(1, Math.min(threads, replicates));
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "splice-bootstrap");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<?>[] futures = new Future<?>[workers];
            for (int w = 0; w < workers; w++) {
                futures[w] = pool.submit(() -> {
                    int b;
                    while ((b = next.getAndIncrement()) < replicates) {
                        double[] th = new double[k];
                        double[][] be = new double[k][3];
                        replicate(data, contexts, draw(data, seed, b), o, th, be);
                        theta[b] = th;
                        beta[b] = be;
                        progress.accept(done.incrementAndGet());
                    }
                });
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("bootstrap interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("bootstrap failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return new Replicates(theta, beta);
    }

    /** The draw of replicate b: {@code picks[j]} = source run, {@code rounds[j]} = its round positions. */
    record Draw(int[] picks, int[][] rounds) {}

    static Draw draw(CampaignData data, long seed, int b) {
        SplittableRandom rng = new SplittableRandom(mix(seed, b));
        int runs = data.runs().size();
        int[] picks = new int[runs];
        int[][] rounds = new int[runs][];
        for (int j = 0; j < runs; j++) {
            picks[j] = rng.nextInt(runs);
        }
        for (int j = 0; j < runs; j++) {
            int nr = data.rounds(picks[j]);
            int[] chosen = new int[nr];
            int filled = 0;
            while (filled < nr) {
                int start = rng.nextInt(nr);
                for (int q = 0; q < BLOCK_ROUNDS && filled < nr; q++) {
                    chosen[filled++] = (start + q) % nr;
                }
            }
            rounds[j] = chosen;
        }
        return new Draw(picks, rounds);
    }

    /** Stafford's mix13 of (seed, replicate): well-separated streams for neighbouring replicates. */
    static long mix(long seed, int b) {
        long z = seed + 0x9E3779B97F4A7C15L * (b + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static void replicate(CampaignData data, List<ContextData> contexts, Draw draw, FitOptions o,
            double[] theta, double[][] beta) {
        int runs = draw.picks().length;
        for (int k = 0; k < contexts.size(); k++) {
            ContextData c = contexts.get(k);
            int n = 0;
            for (int j = 0; j < runs; j++) {
                int[][] byRound = c.rowsByRunRound()[draw.picks()[j]];
                for (int q : draw.rounds()[j]) {
                    n += byRound[q].length;
                }
            }
            int[] idx = new int[n];
            int[] label = new int[n];
            int f = 0;
            for (int j = 0; j < runs; j++) {
                int[][] byRound = c.rowsByRunRound()[draw.picks()[j]];
                for (int q : draw.rounds()[j]) {
                    for (int i : byRound[q]) {
                        idx[f] = i;
                        label[f++] = j;
                    }
                }
            }
            int[] level = new int[n];
            Design d = Subset.design(c, c.y(), idx, label, runs, level);
            HuberFit fit = ContextModel.fit(d, level, c.batches().length, replicateOptions(o)).fit();
            theta[k] = fit.ok() ? fit.theta() : Double.NaN;
            for (int j = 0; j < 3; j++) {
                beta[k][j] = fit.ok() && fit.active()[j] ? fit.beta()[j] : (fit.ok() ? 0 : Double.NaN);
            }
        }
    }
}
