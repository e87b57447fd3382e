package dev.splice.weigh.model;

import dev.splice.base.AtomicFiles;
import dev.splice.weigh.campaign.CoverageTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * The family-wise coverage of the simultaneous band on simulated campaigns: the share of campaigns
 * whose band covers every context's truth. Campaigns are {@link SyntheticCampaign#typical} ones (12
 * runs, 3 batch sizes, Student-t(4) noise, 2% shifted pairs, 1% translated pairs, interrupts at 0.6
 * per ms, a per-window fixed cost) with the run-to-run SD set to a multiple of the within-run
 * standard error of a run's estimate (measured on campaigns without run effects), optionally
 * correlated across contexts. {@code SimultaneousCoverageTest} runs a short version;
 * {@code bench/weigh-coverage.sh} runs {@link #main} with the full grid.
 */
public final class CoverageSimulation {
    private CoverageSimulation() {}

    /**
     * One cell of the grid.
     *
     * @param ratio run-to-run SD / within-run SE of a run's estimate
     * @param runCorrelation share of the run-to-run variance common to all contexts
     * @param batches the batch sizes (targets per window) of every run
     */
    public record Setting(int contexts, int rounds, double ratio, double runCorrelation, int campaigns, int replicates,
            int[] batches) {
        /** The seed's design: batches of 4096, 16384 and 65536 targets. */
        public Setting(int contexts, int rounds, double ratio, double runCorrelation, int campaigns, int replicates) {
            this(contexts, rounds, ratio, runCorrelation, campaigns, replicates, SEED_BATCHES.clone());
        }
    }

    /** The batch sizes of seed 003's design (and of {@code weigh measure} before session 8). */
    static final int[] SEED_BATCHES = {4096, 16384, 65536};

    /** A cell's result: campaigns covered, and the median I^2 of the contexts (the heterogeneity it means). */
    public record Row(Setting setting, int covered, double medianI2, double seconds) {
        double share() {
            return covered / (double) setting.campaigns();
        }

        /** @return the row as a cell of {@code coverage.json} */
        public CoverageTable.Cell cell() {
            return new CoverageTable.Cell(setting.contexts(), setting.rounds(), setting.ratio(), setting.runCorrelation(),
                    medianI2, setting.campaigns(), covered);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "| %4d | %2d | %3.1f | %3.1f | %.2f | %4d | %5.1f%% | %5.1f |",
                    setting.contexts(), setting.rounds(), setting.ratio(), setting.runCorrelation(), medianI2,
                    setting.campaigns(), 100 * share(), seconds);
        }
    }

    /** Markdown header of {@link Row#toString()}. */
    public static final String HEADER = "| K | rounds | run SD / within-run SE | run correlation | median I^2 | campaigns "
            + "| covered | s |\n|---:|---:|---:|---:|---:|---:|---:|---:|";

    static SyntheticCampaign campaign(Setting s, double runSd, long seed) {
        return SyntheticCampaign.typical(s.contexts(), seed).with(b -> {
            b.rounds = s.rounds();
            b.batches = s.batches().clone();
            b.runSd = runSd;
            b.runCorrelation = s.runCorrelation();
            // The auxiliary clocks do not touch the band; leaving them out saves two fits per context.
            b.guestClock = false;
            b.pluginOff = false;
            return b;
        });
    }

    static ModelResult model(SyntheticCampaign s, int replicates, long seed) {
        return WeighModel.run(s.campaign(), ModelOptions.defaults().withReplicates(replicates).withThreads(1)
                .withSeed(seed));
    }

    /**
     * @return the median over contexts of the SD of the run pseudo-values on campaigns without run effects
     */
    public static double withinRunSe(int contexts, int rounds) {
        return withinRunSe(contexts, rounds, SEED_BATCHES);
    }

    /**
     * @return the median over contexts of the SD of the run pseudo-values on campaigns without run
     *     effects, with these batch sizes
     */
    public static double withinRunSe(int contexts, int rounds, int[] batches) {
        List<Double> sds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Setting s = new Setting(contexts, rounds, 0, 0, 1, 19, batches);
            ModelResult r = model(campaign(s, 0, 900 + i), 19, 1);
            for (ContextResult c : r.contexts()) {
                double[] phi = c.analysis().runTheta();
                sds.add(RunValues.standardError(phi) * Math.sqrt(RunValues.count(phi)));
            }
        }
        double[] v = sds.stream().mapToDouble(Double::doubleValue).toArray();
        return Select.median(v);
    }

    /**
     * Runs one cell.
     *
     * @param se the within-run SE the ratio multiplies
     * @param seed first campaign seed (campaign i uses seed + i)
     * @param threads campaigns modelled in parallel
     * @return the cell's coverage
     */
    public static Row run(Setting s, double se, long seed, int threads) {
        long t0 = System.nanoTime();
        double[] i2 = new double[s.campaigns()];
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            long covered = pool.submit(() -> IntStream.range(0, s.campaigns()).parallel().filter(i -> {
                SyntheticCampaign c = campaign(s, s.ratio() * se, seed + i);
                ModelResult r = model(c, s.replicates(), 7L * i + 1);
                double[] v = r.contexts().stream().mapToDouble(x -> x.analysis().dlI2()).toArray();
                i2[i] = Select.median(v);
                for (int k = 0; k < c.truth().length; k++) {
                    ContextResult x = r.contexts().get(k);
                    if (!(x.ciLow() <= c.truth()[k] && c.truth()[k] <= x.ciHigh())) {
                        return false;
                    }
                }
                return true;
            }).count()).get();
            return new Row(s, (int) covered, Select.median(i2), (System.nanoTime() - t0) / 1e9);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            pool.shutdown();
        }
    }

    /**
     * The full grid: {@code CoverageSimulation [CAMPAIGNS] [THREADS] [COVERAGE_JSON [ROUNDS:BATCHES
     * [MAX_K]]]} prints a markdown table, and writes the cells as {@code coverage.json} (for {@code weigh
     * model --coverage}) when a third argument names the file ({@code -}: none). ROUNDS:BATCHES is the
     * design of every run (default {@code 10:4096,16384,65536}; {@code weigh measure}'s since session 8:
     * {@code 30:1024,4096,16384}), MAX_K the largest K simulated (default 400).
     *
     * @param args campaigns per cell (default 400), threads (default: processors), the JSON file, the
     *     design, the largest K
     */
    public static void main(String[] args) {
        List<CoverageTable.Cell> cells = new ArrayList<>();
        int campaigns = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        String[] design = (args.length > 3 ? args[3] : "10:4096,16384,65536").split(":");
        int rounds = Integer.parseInt(design[0]);
        int[] batches = java.util.Arrays.stream(design[1].split(",")).mapToInt(Integer::parseInt).toArray();
        int maxK = args.length > 4 ? Integer.parseInt(args[4]) : 400;
        System.out.println(HEADER);
        for (int k : java.util.stream.IntStream.of(10, 100, 400).filter(x -> x <= maxK).toArray()) {
            double se = withinRunSe(Math.min(k, 50), rounds, batches);
            for (double rho : new double[] {0, 0.5}) {
                for (double ratio : new double[] {0, 1, 3, 5}) {
                    if (rho > 0 && ratio == 0) {
                        continue;
                    }
                    int n = k == 400 ? Math.max(50, campaigns / 2) : campaigns;
                    Row row = run(new Setting(k, rounds, ratio, rho, n, 999, batches), se, 10_000L * k + 77, threads);
                    System.out.println(row);
                    cells.add(row.cell());
                }
            }
        }
        if (args.length > 2 && !args[2].equals("-")) {
            AtomicFiles.write(Path.of(args[2]), new CoverageTable(cells).toJson());
        }
    }
}
