package dev.splice.weigh.model;

import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.PairRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A campaign arranged for the model: runs in name order, each run's probe rounds in order, and the
 * kept pairs of every context. Pairs with translations inside their windows are removed and counted,
 * then the pairs of each run's burn-in (position below {@link #BURN_IN_POSITION}).
 */
final class CampaignData {
    /**
     * The first 5% of every run (by position) is its burn-in: the start-of-run transient (higher
     * interrupt rate, caches and host state settling) is discarded rather than modelled.
     */
    static final double BURN_IN_POSITION = 0.05;

    private final List<String> runs;
    private final int[][] roundsOfRun;
    private final List<ContextData> contexts;
    private final Map<String, ContextData> offContexts;
    private final Campaign campaign;

    private CampaignData(List<String> runs, int[][] roundsOfRun, List<ContextData> contexts,
            Map<String, ContextData> offContexts, Campaign campaign) {
        this.runs = runs;
        this.roundsOfRun = roundsOfRun;
        this.contexts = contexts;
        this.offContexts = offContexts;
        this.campaign = campaign;
    }

    /** @return the run names, in order */
    List<String> runs() {
        return runs;
    }

    /**
     * @param run a run index
     * @return its number of probe rounds
     */
    int rounds(int run) {
        return roundsOfRun[run].length;
    }

    /** @return the contexts' kept pairs, in context order */
    List<ContextData> contexts() {
        return contexts;
    }

    /**
     * @param context a context key
     * @return its plugin-off pairs in the same form, or null
     */
    ContextData off(String context) {
        return offContexts.get(context);
    }

    /** @return the campaign this was built from */
    Campaign campaign() {
        return campaign;
    }

    /**
     * @param c a campaign
     * @return it arranged for the model
     */
    static CampaignData of(Campaign c) {
        TreeSet<String> runNames = new TreeSet<>();
        Map<String, TreeSet<Integer>> rounds = new HashMap<>();
        for (PairRow p : c.pairs()) {
            runNames.add(p.run());
            rounds.computeIfAbsent(p.run(), r -> new TreeSet<>()).add(p.round());
        }
        List<String> runs = new ArrayList<>(runNames);
        Map<String, Integer> runIndex = new HashMap<>();
        int[][] roundsOfRun = new int[runs.size()][];
        List<Map<Integer, Integer>> roundIndex = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            runIndex.put(runs.get(r), r);
            roundsOfRun[r] = rounds.get(runs.get(r)).stream().mapToInt(Integer::intValue).toArray();
            Map<Integer, Integer> idx = new HashMap<>();
            for (int q = 0; q < roundsOfRun[r].length; q++) {
                idx.put(roundsOfRun[r][q], q);
            }
            roundIndex.add(idx);
        }
        List<ContextData> contexts = new ArrayList<>();
        for (List<PairRow> ps : byContext(c.pairs()).values()) {
            contexts.add(build(ps, runIndex, roundIndex, roundsOfRun, false));
        }
        Map<String, ContextData> off = new LinkedHashMap<>();
        for (var e : byContext(c.offPairs()).entrySet()) {
            List<PairRow> known = e.getValue().stream().filter(p -> runIndex.containsKey(p.run())
                    && roundIndex.get(runIndex.get(p.run())).containsKey(p.round())).toList();
            if (!known.isEmpty()) {
                off.put(e.getKey(), build(known, runIndex, roundIndex, roundsOfRun, true));
            }
        }
        return new CampaignData(runs, roundsOfRun, contexts, off, c);
    }

    private static Map<String, List<PairRow>> byContext(List<PairRow> pairs) {
        Map<String, List<PairRow>> out = new TreeMap<>();
        for (PairRow p : pairs) {
            out.computeIfAbsent(p.context(), k -> new ArrayList<>()).add(p);
        }
        return out;
    }

    private static ContextData build(List<PairRow> all, Map<String, Integer> runIndex,
            List<Map<Integer, Integer>> roundIndex, int[][] roundsOfRun, boolean off) {
        PairRow first = all.get(0);
        TreeSet<String> baselines = new TreeSet<>();
        TreeSet<String> keys = new TreeSet<>();
        TreeSet<Integer> batchSet = new TreeSet<>();
        List<PairRow> kept = new ArrayList<>();
        int ab = 0;
        int burnIn = 0;
        for (PairRow p : all) {
            baselines.add(p.baseline());
            if (p.key() != null) {
                keys.add(p.key());
            }
            if (p.translationCount() == 0 && p.position() < BURN_IN_POSITION) {
                burnIn++;
            } else if (p.translationCount() == 0) {
                double v = off ? p.perInstructionGuestNs() : p.perInstructionNs();
                if (Double.isFinite(v)) {
                    kept.add(p);
                    batchSet.add(p.batch());
                    ab += p.order() == PairRow.Order.AB ? 1 : 0;
                }
            }
        }
        // Several baselines or keys for one context stay visible: the reference graph refuses them.
        String baseline = String.join("|", baselines);
        String key = keys.isEmpty() ? null : String.join("|", keys);
        int[] batches = batchSet.stream().mapToInt(Integer::intValue).toArray();
        int n = kept.size();
        double[] y = new double[n];
        double[] guest = new double[n];
        double[] exposure = new double[n];
        int[] run = new int[n];
        int[] roundPos = new int[n];
        int[] level = new int[n];
        double[][] x = new double[ContextData.COVARIATES][n];
        int[] batchCounts = new int[batches.length];
        int runs = roundsOfRun.length;
        List<List<List<Integer>>> rows = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            List<List<Integer>> perRound = new ArrayList<>();
            for (int q = 0; q < roundsOfRun[r].length; q++) {
                perRound.add(new ArrayList<>());
            }
            rows.add(perRound);
        }
        for (int i = 0; i < n; i++) {
            PairRow p = kept.get(i);
            y[i] = off ? p.perInstructionGuestNs() : p.perInstructionNs();
            guest[i] = p.perInstructionGuestNs();
            exposure[i] = off ? p.probeGuestNs() + p.baselineGuestNs() : p.probeNs() + p.baselineNs();
            run[i] = runIndex.get(p.run());
            roundPos[i] = roundIndex.get(run[i]).get(p.round());
            level[i] = java.util.Arrays.binarySearch(batches, p.batch());
            batchCounts[level[i]]++;
            x[0][i] = p.order() == PairRow.Order.AB ? 0.5 : -0.5;
            x[1][i] = p.position() - 0.5;
            x[ContextData.WINDOW][i] = 1.0 / p.batch();
            x[3][i] = p.translationCount() / (double) p.batch();
            rows.get(run[i]).get(roundPos[i]).add(i);
        }
        int[][][] byRunRound = new int[runs][][];
        for (int r = 0; r < runs; r++) {
            byRunRound[r] = new int[roundsOfRun[r].length][];
            for (int q = 0; q < roundsOfRun[r].length; q++) {
                byRunRound[r][q] = rows.get(r).get(q).stream().mapToInt(Integer::intValue).toArray();
            }
        }
        int translated = all.size() - n - burnIn;
        return new ContextData(first.context(), baseline, key, y, guest, exposure, run, roundPos, x, level, batches,
                byRunRound, all.size(), translated, burnIn, ab, batchCounts);
    }
}
