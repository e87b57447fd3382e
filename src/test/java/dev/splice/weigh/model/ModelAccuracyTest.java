package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Estimates against the generator's known truths. */
class ModelAccuracyTest {
    @Test
    void estimatesAndNuisanceEffectsMatchTheTruth() {
        SyntheticCampaign s = SyntheticCampaign.typical(6, 42).with(b -> {
            b.order = 0.02;
            b.drift = -0.03;
            b.slope = 0.01;
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
            assertEquals(0.01, f.beta()[2], 4 * c.betaSe()[2] + 1e-3, "batch slope");
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

    @Test
    void zeroAndNegativeEstimates() {
        SyntheticCampaign s = SyntheticCampaign.typical(3, 4).with(b -> {
            b.truth = new double[] {0.0, -1.0, -0.05};
            b.sd = 0.005;
            return b;
        });
        ModelResult r = WeighModel.run(s.campaign(), ModelOptions.defaults().withReplicates(99).withSeed(5));
        ContextResult zero = r.contexts().get(0);
        assertTrue(zero.zeroCostEquivalent());
        assertEquals(0.0, zero.weight());
        ContextResult negative = r.contexts().get(1);
        assertNull(negative.weight());
        assertEquals("significantly-negative-not-published", negative.publication().label());
        assertTrue(negative.estimate() < -0.9, "the unconstrained estimate is kept");
        ContextResult small = r.contexts().get(2);
        assertTrue(small.zeroCostEquivalent(), "interval " + small.ciLow() + ".." + small.ciHigh());
    }
}
