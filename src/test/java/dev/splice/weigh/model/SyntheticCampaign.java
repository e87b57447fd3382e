package dev.splice.weigh.model;

import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.CampaignLayout;
import dev.splice.weigh.campaign.PairRow;
import dev.splice.weigh.campaign.PairRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Synthetic campaigns with known truths. Per pair, in ns per target instruction:
 * {@code d = theta_k + alpha_(run,k) + order*O + drift*D + slope*ln(N/N0) + overhead/N
 * + transient*exp(-position/TRANSIENT_DECAY) + noise}, with {@code alpha = runSd (sqrt(rho) f_run +
 * sqrt(1 - rho) z_(run,k))}, {@code f, z ~ N(0, 1)} ({@code rho = runCorrelation}: the share of the
 * run-to-run variance common to all contexts; theta is the population value over runs), noise
 * Student-t({@code tDf}) scaled to {@code sd * sqrt(N0/N)}, a share of contaminated pairs shifted by
 * +-(10..50) sd (a disturbed probe or baseline window), and a share of pairs with translations (badly
 * disturbed; the model must remove them). Then host interrupts: each window of clean length T gets
 * Poisson({@code eventRatePerMs} T) events of Uniform(15, 60) us each (seed 003's sizes), so the
 * contamination is one-sided per window and proportional to its exposure. The plugin-on guest clock
 * sees {@code d + guestShift} (a clock that disagrees with thread CPU time), the plugin-off pass
 * {@code d + guestShift + offShift} with noise of its own (the same clock, a pass without the plugin).
 * {@code roundAr} and {@code roundArSd} add a stationary AR(1) term across the rounds of a run (per
 * context, coefficient {@code roundAr}, standard deviation {@code roundArSd}): autocorrelated noise
 * whose integrated autocorrelation time is {@code (1 + roundAr) / (1 - roundAr)} where it dominates.
 */
public record SyntheticCampaign(
        int runs,
        int rounds,
        double[] truth,
        String[] baselines,
        int[] batches,
        double runSd,
        double order,
        double drift,
        double slope,
        double overheadNs,
        double sd,
        int tDf,
        double contamination,
        double translationShare,
        double offShift,
        double guestShift,
        double eventRatePerMs,
        double runCorrelation,
        double transientNs,
        double roundAr,
        double roundArSd,
        boolean guestClock,
        boolean pluginOff,
        boolean exactRun,
        long seed) {

    /** A well-behaved campaign of {@code k} contexts that should pass every gate. */
    public static SyntheticCampaign typical(int k, long seed) {
        double[] truth = new double[k];
        String[] baselines = new String[k];
        for (int j = 0; j < k; j++) {
            truth[j] = 0.3 + 4.0 * j / Math.max(1, k - 1);
            baselines[j] = "nop.shape";
        }
        return new SyntheticCampaign(12, 10, truth, baselines, new int[] {4096, 16384, 65536}, 0.012, 0.002, 0.002,
                0.0, 1500.0, 0.01, 4, 0.02, 0.01, 0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 0.0, true, true, false, seed);
    }

    /** Start-of-run transient decay, as a share of the run: it is mostly inside the model's 5% burn-in. */
    public static final double TRANSIENT_DECAY = 0.01;
    /** Interrupt sizes: Uniform(EVENT_MIN_NS, EVENT_MAX_NS) of window time. */
    public static final double EVENT_MIN_NS = 15_000;
    public static final double EVENT_MAX_NS = 60_000;

    /** Interrupt time added to a window of clean length {@code t} ns. */
    private double interrupts(SplittableRandom rng, double t) {
        if (!(eventRatePerMs > 0)) {
            return 0;
        }
        double mean = eventRatePerMs * t / 1e6;
        // Knuth's product method: the means here are below 10.
        double limit = Math.exp(-mean);
        double prod = rng.nextDouble();
        double added = 0;
        while (prod > limit) {
            added += EVENT_MIN_NS + (EVENT_MAX_NS - EVENT_MIN_NS) * rng.nextDouble();
            prod *= rng.nextDouble();
        }
        return added;
    }

    /**
     * Writes a typical campaign: {@code SyntheticCampaign DIR CONTEXTS [SEED [ROUNDS [BATCHES]]]}, BATCHES
     * comma-separated (used by bench/).
     */
    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: SyntheticCampaign DIR CONTEXTS [SEED [ROUNDS [BATCHES]]]");
            System.exit(1);
        }
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
        SyntheticCampaign s = typical(Integer.parseInt(args[1]), seed).with(b -> {
            if (args.length > 3) {
                b.rounds = Integer.parseInt(args[3]);
            }
            if (args.length > 4) {
                b.batches = java.util.Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray();
            }
            return b;
        });
        s.write(Path.of(args[0]));
        System.out.println("wrote " + s.runs() * s.rounds() * s.truth().length * s.batches().length + " pairs to " + args[0]);
    }

    public String context(int k) {
        return String.format(Locale.ROOT, "op%03d.dependency", k);
    }

    public SyntheticCampaign with(java.util.function.UnaryOperator<Builder> edit) {
        return edit.apply(new Builder(this)).build();
    }

    /** The plugin-on and plugin-off pairs. */
    public Campaign campaign() {
        List<PairRow> on = new ArrayList<>();
        List<PairRow> off = new ArrayList<>();
        SplittableRandom rng = new SplittableRandom(seed);
        double logN0 = 0;
        for (int b : batches) {
            logN0 += Math.log(b);
        }
        logN0 /= batches.length;
        int k = truth.length;
        for (int r = 0; r < runs; r++) {
            String run = String.format(Locale.ROOT, "run-%02d", r);
            double[] alpha = new double[k];
            double common = rng.nextGaussian();
            for (int j = 0; j < k; j++) {
                alpha[j] = runSd * (Math.sqrt(runCorrelation) * common
                        + Math.sqrt(1 - runCorrelation) * rng.nextGaussian());
            }
            int slot = 0;
            int slots = rounds * k * batches.length;
            double[] ar = new double[k];
            // drawn only when asked for, so that other campaigns keep their random streams
            for (int j = 0; j < k && roundArSd > 0; j++) {
                ar[j] = roundArSd * rng.nextGaussian();
            }
            for (int q = 0; q < rounds; q++) {
                for (int j = 0; j < k; j++) {
                    if (q > 0 && roundArSd > 0) {
                        ar[j] = roundAr * ar[j] + roundArSd * Math.sqrt(1 - roundAr * roundAr) * rng.nextGaussian();
                    }
                    for (int batch : batches) {
                        double position = (slot++ + 0.5) / slots;
                        boolean ab = rng.nextBoolean();
                        double l = Math.log(batch) - logN0;
                        double mean = truth[j] + alpha[j] + order * (ab ? 0.5 : -0.5) + drift * (position - 0.5)
                                + slope * l + overheadNs / batch + transientNs * Math.exp(-position / TRANSIENT_DECAY) + ar[j];
                        double noise = sd * Math.sqrt(Math.exp(logN0) / batch) * studentT(rng);
                        boolean exact = exactRun && r == 0;
                        if (rng.nextDouble() < contamination && !exact) {
                            noise += (rng.nextBoolean() ? 1 : -1) * sd * (10 + 40 * rng.nextDouble());
                        }
                        int translations = 0;
                        if (exact) {
                            noise = 0;
                        } else if (rng.nextDouble() < translationShare) {
                            translations = 1 + rng.nextInt(3);
                            noise += 200 * sd + 5 * rng.nextDouble();
                        }
                        double d = mean + noise;
                        double base = 4000 + 0.31 * batch + 50 * rng.nextDouble();
                        if (exact) {
                            // Quantized, constant times: every pair of this run has exactly the same d.
                            d = Math.rint(truth[j] * 1024) / 1024;
                            base = 4096;
                        }
                        double probe = base + d * batch;
                        if (!exact) {
                            probe += interrupts(rng, probe);
                            base += interrupts(rng, base);
                            d = (probe - base) / batch;
                        }
                        double gBase = base * 1.02 + 30;
                        double gProbe = gBase + (d + guestShift) * batch + 20 * rng.nextGaussian();
                        PairRow.Order order = ab ? PairRow.Order.AB : PairRow.Order.BA;
                        on.add(new PairRow(run, context(j), baselines[j], null, batch, order, q, position, null, probe,
                                base, guestClock ? gProbe : Double.NaN, guestClock ? gBase : Double.NaN, translations));
                        if (pluginOff) {
                            double offD = mean + guestShift + offShift + sd * Math.sqrt(Math.exp(logN0) / batch) * studentT(rng);
                            double oBase = base * 0.9;
                            double oProbe = oBase + offD * batch;
                            oProbe += interrupts(rng, oProbe);
                            double oBaseHit = oBase + interrupts(rng, oBase);
                            off.add(new PairRow(run, context(j), baselines[j], null, batch, order, q, position, null,
                                    Double.NaN, Double.NaN, oProbe, oBaseHit, 0));
                        }
                    }
                }
            }
        }
        return new Campaign(on, off, List.of(), Set.of(), pluginOff);
    }

    private double studentT(SplittableRandom rng) {
        double z = rng.nextGaussian();
        if (tDf <= 0) {
            return z;
        }
        double chi = 0;
        for (int i = 0; i < tDf; i++) {
            double g = rng.nextGaussian();
            chi += g * g;
        }
        // Scaled to unit variance so that sd means the same for every df > 2.
        return z / Math.sqrt(chi / tDf) * Math.sqrt((tDf - 2.0) / tDf);
    }

    /** Writes pairs.jsonl and pairs-off.jsonl as the harness does. */
    public void write(Path dir) {
        Campaign c = campaign();
        CampaignLayout layout = new CampaignLayout(dir);
        try {
            Files.createDirectories(dir);
            Files.writeString(layout.pairs(), PairRows.lines(c.pairs()), StandardCharsets.UTF_8);
            if (pluginOff) {
                Files.writeString(layout.pairsOff(), PairRows.lines(c.offPairs()), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Mutable copy for tests that change a few knobs. */
    public static final class Builder {
        public int runs;
        public int rounds;
        public double[] truth;
        public String[] baselines;
        public int[] batches;
        public double runSd;
        public double order;
        public double drift;
        public double slope;
        public double overheadNs;
        public double sd;
        public int tDf;
        public double contamination;
        public double translationShare;
        public double offShift;
        public double guestShift;
        public double eventRatePerMs;
        public double runCorrelation;
        public double transientNs;
        public double roundAr;
        public double roundArSd;
        public boolean guestClock;
        public boolean pluginOff;
        public boolean exactRun;
        public long seed;

        Builder(SyntheticCampaign s) {
            runs = s.runs;
            rounds = s.rounds;
            truth = s.truth.clone();
            baselines = s.baselines.clone();
            batches = s.batches.clone();
            runSd = s.runSd;
            order = s.order;
            drift = s.drift;
            slope = s.slope;
            overheadNs = s.overheadNs;
            sd = s.sd;
            tDf = s.tDf;
            contamination = s.contamination;
            translationShare = s.translationShare;
            offShift = s.offShift;
            guestShift = s.guestShift;
            eventRatePerMs = s.eventRatePerMs;
            runCorrelation = s.runCorrelation;
            transientNs = s.transientNs;
            roundAr = s.roundAr;
            roundArSd = s.roundArSd;
            guestClock = s.guestClock;
            pluginOff = s.pluginOff;
            exactRun = s.exactRun;
            seed = s.seed;
        }

        SyntheticCampaign build() {
            return new SyntheticCampaign(runs, rounds, truth, baselines, batches, runSd, order, drift, slope,
                    overheadNs, sd, tDf, contamination, translationShare, offShift, guestShift, eventRatePerMs,
                    runCorrelation, transientNs, roundAr, roundArSd, guestClock, pluginOff, exactRun, seed);
        }
    }
}
