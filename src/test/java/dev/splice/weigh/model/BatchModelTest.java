package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The shape {@code d = beta + alpha/N} (per-window totals {@code T = alpha + beta N}): the marginal
 * cost beta and the per-window fixed cost alpha are recovered, a curvature in 1/N shows as lack of
 * fit, the variance function of N is found, and the start-of-run transient stays in the burn-in.
 */
class BatchModelTest {
    static ModelResult model(SyntheticCampaign s) {
        return WeighModel.run(s.campaign(), ModelOptions.defaults().withReplicates(199).withThreads(2).withSeed(4));
    }

    @Test
    void marginalAndPerWindowCostsAreRecovered() {
        for (double alpha : new double[] {0, 1500, 6000}) {
            SyntheticCampaign s = SyntheticCampaign.typical(6, 31).with(b -> {
                b.overheadNs = alpha;
                return b;
            });
            ModelResult r = model(s);
            for (int k = 0; k < s.truth().length; k++) {
                ContextResult c = r.contexts().get(k);
                double a = c.analysis().fit().beta()[ContextData.WINDOW];
                double aSe = c.betaSe()[ContextData.WINDOW];
                System.out.printf(Locale.ROOT, "alpha %5.0f ns: beta %.4f truth %.4f (se %.4f), alpha %7.1f (se %5.1f)%n",
                        alpha, c.estimate(), s.truth()[k], c.se(), a, aSe);
                assertEquals(s.truth()[k], c.estimate(), 4 * c.se(), c.context() + " beta");
                assertTrue(c.ciLow() <= s.truth()[k] && s.truth()[k] <= c.ciHigh(), c.context());
                assertEquals(alpha, a, 4 * aSe + 1, c.context() + " alpha");
                assertTrue(aSe < 30, "alpha is measured to tens of ns per window: " + aSe);
                assertFalse(c.reasons().stream().anyMatch(x -> x.gate().equals(QualityGates.BATCH)), c.reasons().toString());
            }
        }
    }

    @Test
    void curvatureInOneOverNIsLackOfFit() {
        // d += slope ln(N/N0): at the middle batch the line through the outer two misses by
        // -slope ln 4 (0.2 (-1) + 0.8 (+1)) = -0.832 slope.
        double slope = 0.1;
        SyntheticCampaign s = SyntheticCampaign.typical(4, 32).with(b -> {
            b.slope = slope;
            return b;
        });
        ModelResult r = model(s);
        double lambda = (1.0 / 16384 - 1.0 / 65536) / (1.0 / 4096 - 1.0 / 65536);
        double expected = -slope * Math.log(4) * (-lambda + (1 - lambda));
        for (ContextResult c : r.contexts()) {
            ContextAnalysis.LackOfFit l = c.analysis().lackOfFit().get(0);
            assertEquals(16384, l.batch());
            assertEquals(expected, l.deviation(), 4 * l.se(), c.context());
            double margin = Math.max(QualityGates.EFFECT_MARGIN_ABS_NS, QualityGates.EFFECT_MARGIN_REL * Math.abs(c.contrast()));
            boolean fails = c.reasons().stream().anyMatch(x -> x.gate().equals(QualityGates.BATCH));
            if (Math.abs(expected) > margin) {
                assertTrue(fails, c.context() + " " + c.reasons());
            } else if (Math.abs(expected) + 5 * l.se() < margin) {
                assertFalse(fails, c.context() + " " + c.reasons());
            }
        }
    }

    @Test
    void varianceFunctionOfNIsFound() {
        // Noise SD of d proportional to N^-1/2: gamma -1/2, so 65536 pairs weigh 16 times 4096 pairs.
        SyntheticCampaign s = SyntheticCampaign.typical(4, 33).with(b -> {
            b.contamination = 0;
            b.eventRatePerMs = 0;
            return b;
        });
        ModelResult r = model(s);
        for (ContextResult c : r.contexts()) {
            assertEquals(-0.5, c.analysis().varianceExponent(), 0.1, c.context());
        }
    }

    @Test
    void startOfRunTransientStaysInTheBurnIn() {
        SyntheticCampaign s = SyntheticCampaign.typical(4, 34).with(b -> {
            b.transientNs = 0.5;
            return b;
        });
        ModelResult r = model(s);
        assertTrue(r.funnel().get("removed_burn_in") > 0);
        for (int k = 0; k < 4; k++) {
            ContextResult c = r.contexts().get(k);
            assertEquals(s.truth()[k], c.estimate(), 4 * c.se(), c.context());
        }
    }
}
