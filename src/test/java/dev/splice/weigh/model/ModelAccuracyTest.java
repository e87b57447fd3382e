package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.PairRow;
import org.junit.jupiter.api.Test;

/** Estimates against the generator's known truths. */
class ModelAccuracyTest {
    @Test
    void estimatesAndNuisanceEffectsMatchTheTruth() {
        SyntheticCampaign s = SyntheticCampaign.typical(6, 42).with(b -> {
            b.order = 0.02;
            b.drift = -0.03;
            b.overheadNs = 2500;
            b.contamination = 0.04;
            b.translationShare = 0.03;
            return b;
        });
        ModelResult r = WeighModel.run(s.campaign(), ModelOptions.defaults().withReplicates(99).withSeed(5));
        assertTrue(r.funnel().get("removed_translations") > 0);
        for (int k = 0; k < s.truth().length; k++) {
            ContextResult c = r.contexts().get(k);
            double err = c.estimate() - s.truth()[k];
            assertTrue(Math.abs(err) <= 4 * c.se() && Math.abs(err) < 0.02,
                    c.context() + " estimate " + c.estimate() + " truth " + s.truth()[k] + " se " + c.se());
            HuberFit f = c.analysis().fit();
            assertEquals(0.02, f.beta()[0], 4 * c.betaSe()[0] + 1e-3, "order effect");
            assertEquals(-0.03, f.beta()[1], 4 * c.betaSe()[1] + 1e-3, "drift effect");
            assertEquals(2500, f.beta()[2], 4 * c.betaSe()[2] + 25, "per-window fixed cost (ns)");
            assertTrue(c.ciLow() < c.estimate() && c.estimate() < c.ciHigh());
            assertTrue(c.analysis().ess() > 20 && c.analysis().ess() <= c.analysis().essKish());
        }
    }

    @Test
    void measuredBaselineGivesAbsoluteCostThroughTheChain() {
        SyntheticCampaign s = SyntheticCampaign.typical(3, 8).with(b -> {
            // op001 is measured against op000, op002 against op001: absolute = sum along the chain.
            b.baselines = new String[] {"nop.shape", "op000.dependency", "op001.dependency"};
            return b;
        });
        ModelResult r = WeighModel.run(s.campaign(), ModelOptions.defaults().withReplicates(99).withSeed(5));
        double[] t = s.truth();
        double[] absolute = {t[0], t[0] + t[1], t[0] + t[1] + t[2]};
        for (int k = 0; k < 3; k++) {
            ContextResult c = r.contexts().get(k);
            assertEquals(absolute[k], c.estimate(), Math.max(4 * c.se(), 0.005), c.context());
            assertEquals(k + 2, c.referenceChain().size(), c.referenceChain().toString());
        }
        assertTrue(r.contexts().get(2).se() > r.contexts().get(0).se(), "a chain adds the uncertainty of its links");
    }

    /**
     * The practical zero is a tenth of the cheapest context whose band lies above zero (here the
     * 0.03 ns one), not a fixed +-0.15 ns: a cheap real cost keeps its estimate, only a true zero is
     * flagged, and no weight of 0 is printed for a band that excludes 0.
     */
    @Test
    void zeroAndNegativeEstimates() {
        SyntheticCampaign s = SyntheticCampaign.typical(4, 4).with(b -> {
            b.truth = new double[] {0.0, -1.0, 0.03, 0.3};
            b.sd = 0.002;
            b.runSd = 0.0003;
            return b;
        });
        ModelResult r = WeighModel.run(s.campaign(), ModelOptions.defaults().withReplicates(99).withSeed(5));
        ContextResult cheap = r.contexts().get(2);
        assertEquals(cheap.context(), r.zeroReference());
        assertEquals(WeighModel.ZERO_MARGIN_REL * cheap.estimate(), r.zeroMarginNs(), 1e-15);
        assertTrue(cheap.ciLow() > 0 && cheap.ciHigh() < 0.15, "the old +-0.15 ns rule would have published 0");
        assertFalse(cheap.zeroCostEquivalent());
        assertEquals(cheap.estimate(), cheap.weight());
        ContextResult zero = r.contexts().get(0);
        assertTrue(zero.zeroCostEquivalent(), "interval " + zero.ciLow() + ".." + zero.ciHigh());
        assertTrue(zero.ciLow() >= -r.zeroMarginNs() && zero.ciHigh() <= r.zeroMarginNs());
        assertEquals("zero-cost-equivalent", zero.publication().label());
        assertEquals(zero.estimate() < 0 ? 0.0 : zero.estimate(), zero.weight(), "the estimate, 0 only when negative");
        ContextResult negative = r.contexts().get(1);
        assertNull(negative.weight());
        assertEquals("significantly-negative-not-published", negative.publication().label());
        assertTrue(negative.estimate() < -0.9, "the unconstrained estimate is kept");
        for (ContextResult c : r.contexts()) {
            if (c.weight() != null && c.weight() == 0.0) {
                assertTrue(c.ciLow() <= 0 && 0 <= c.ciHigh(), c.context() + ": 0 printed for a band without 0");
            }
        }
    }

    /**
     * A context the table marks as measuring TCG's optimizer (the folded chain {@code c.andi.dependency})
     * is no reference for the practical zero, however cheap: the margin is a tenth of the cheapest real
     * instruction context.
     */
    @Test
    void aFoldedChainDoesNotSetThePracticalZero() {
        SyntheticCampaign s = SyntheticCampaign.typical(3, 4).with(b -> {
            b.truth = new double[] {0.001, 0.03, 0.3};
            b.sd = 0.002;
            b.runSd = 0.0001;
            return b;
        });
        Campaign c = s.campaign();
        String folded = "c.andi.dependency";
        java.util.function.UnaryOperator<PairRow> rename = p -> p.context().equals(s.context(0))
                ? new PairRow(p.run(), folded, p.baseline(), p.key(), p.batch(), p.order(), p.round(), p.position(),
                        p.windows(), p.probeNs(), p.baselineNs(), p.probeGuestNs(), p.baselineGuestNs(), p.translations())
                : p;
        Campaign renamed = new Campaign(c.pairs().stream().map(rename).toList(), c.offPairs().stream().map(rename).toList(),
                c.badRows(), c.expectedContexts(), c.offFilePresent());
        ModelResult r = WeighModel.run(renamed, ModelOptions.defaults().withReplicates(99).withSeed(5));
        ContextResult chain = r.contexts().stream().filter(x -> x.context().equals(folded)).findFirst().orElseThrow();
        assertTrue(chain.ciLow() > 0, "the folded chain's band lies above zero: " + chain.ciLow());
        ContextResult real = r.contexts().stream().filter(x -> x.context().equals(s.context(1))).findFirst().orElseThrow();
        assertEquals(real.context(), r.zeroReference());
        assertEquals(WeighModel.ZERO_MARGIN_REL * real.estimate(), r.zeroMarginNs(), 1e-15);
    }
}
