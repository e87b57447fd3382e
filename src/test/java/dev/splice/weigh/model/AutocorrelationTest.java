package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.campaign.Reason;
import org.junit.jupiter.api.Test;

/**
 * The integrated autocorrelation time tau and the effective sample size on synthetic campaigns whose
 * rounds carry AR(1) noise of known coefficient: tau near (1 + phi) / (1 - phi) where that noise
 * dominates, 1 without it, and the ESS gate binding when the autocorrelation leaves too few
 * effective pairs.
 */
class AutocorrelationTest {
    private static ContextAnalysis analysis(double phi, double arSd, int rounds, long seed) {
        SyntheticCampaign s = SyntheticCampaign.typical(1, seed).with(b -> {
            b.roundAr = phi;
            b.roundArSd = arSd;
            b.rounds = rounds;
            b.runSd = 0;
            return b;
        });
        return GateFailureTest.model(s).contexts().get(0).analysis();
    }

    private static double meanTau(double phi, double arSd, int rounds) {
        double sum = 0;
        int n = 6;
        for (int seed = 0; seed < n; seed++) {
            sum += analysis(phi, arSd, rounds, 100 + seed).tau();
        }
        return sum / n;
    }

    @Test
    void whiteNoiseHasTauNearOne() {
        double tau = meanTau(0, 0, 10);
        assertTrue(tau >= 1 && tau < 1.4, "tau " + tau);
    }

    @Test
    void ar1RoundsGiveTheirAutocorrelationTime() {
        // phi = 0.8: tau = 9 in theory
        double tau = meanTau(0.8, 0.2, 40);
        assertTrue(tau > 6.5 && tau < 12, "tau " + tau + " for phi = 0.8 (theory 9)");
        double half = meanTau(0.5, 0.2, 40);
        assertTrue(half > 2.2 && half < 4, "tau " + half + " for phi = 0.5 (theory 3)");
        // the formal campaign's 10 rounds per run
        double formal = meanTau(0.5, 0.2, 10);
        assertTrue(formal > 2 && formal < 5, "tau " + formal + " for phi = 0.5 at 10 rounds (theory 3)");
    }

    @Test
    void essGateBindsWhenAutocorrelationLeavesFewPairs() {
        // 2 runs x 20 rounds x 2 batches: 80 pairs, enough when independent, too few at phi = 0.9
        ContextResult white = small(0, 0);
        ContextResult ar = small(0.9, 0.3);
        assertTrue(white.reasons().stream().map(Reason::gate).noneMatch(QualityGates.ESS_LOW::equals),
                "tau " + white.analysis().tau() + ", ess " + white.analysis().ess());
        assertTrue(ar.reasons().stream().map(Reason::gate).anyMatch(QualityGates.ESS_LOW::equals),
                "tau " + ar.analysis().tau() + ", ess " + ar.analysis().ess());
    }

    private static ContextResult small(double phi, double arSd) {
        SyntheticCampaign s = SyntheticCampaign.typical(1, 7).with(b -> {
            b.roundAr = phi;
            b.roundArSd = arSd;
            b.rounds = 20;
            b.runs = 2;
            b.runSd = 0;
            b.batches = new int[] {4096, 65536};
            return b;
        });
        return GateFailureTest.model(s).contexts().get(0);
    }
}
