package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.campaign.Reason;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The plugin-off and cross-clock gates on synthetic campaigns with known answers: a cheap context
 * (0.05 ns, where the old gate's 0.15 ns floor let a 40% difference pass) whose plugin-off pass or
 * guest clock differs by 40%, or not at all. Each gate fires on its own change only (the plugin-off
 * check compares the two guest-clock estimates, so a clock that disagrees with thread CPU time is not
 * a pass difference), and a gate that passes has the power to see the difference it is meant for.
 */
class CheckGatesTest {
    private static final double CHEAP_NS = 0.05;
    private static final long[] SEEDS = {11, 12, 13, 14, 15};

    private static List<String> gates(UnaryOperator<SyntheticCampaign.Builder> edit, long seed) {
        SyntheticCampaign s = SyntheticCampaign.typical(1, seed).with(b -> {
            b.truth = new double[] {CHEAP_NS};
            return edit.apply(b);
        });
        ContextResult c = GateFailureTest.model(s).contexts().get(0);
        return c.reasons().stream().map(Reason::gate).toList();
    }

    private static Reason reason(UnaryOperator<SyntheticCampaign.Builder> edit, long seed, String gate) {
        SyntheticCampaign s = SyntheticCampaign.typical(1, seed).with(b -> {
            b.truth = new double[] {CHEAP_NS};
            return edit.apply(b);
        });
        return GateFailureTest.model(s).contexts().get(0).reasons().stream().filter(r -> r.gate().equals(gate))
                .findFirst().orElseThrow(() -> new AssertionError(gate + " did not fire"));
    }

    @Test
    void equalPassesAndClocksPassBoth() {
        for (long seed : SEEDS) {
            List<String> g = gates(b -> b, seed);
            assertFalse(g.contains(QualityGates.OFF_DIVERGENT), seed + ": " + g);
            assertFalse(g.contains(QualityGates.CLOCK_DIVERGENT), seed + ": " + g);
        }
    }

    @Test
    void pluginOffFortyPercentCheaperFailsThePluginOffGateOnly() {
        for (long seed : SEEDS) {
            List<String> g = gates(b -> { b.offShift = -0.4 * CHEAP_NS; return b; }, seed);
            assertTrue(g.contains(QualityGates.OFF_DIVERGENT), seed + ": " + g);
            assertFalse(g.contains(QualityGates.CLOCK_DIVERGENT), seed + ": " + g);
        }
        Reason r = reason(b -> { b.offShift = -0.4 * CHEAP_NS; return b; }, SEEDS[0], QualityGates.OFF_DIVERGENT);
        assertEquals(Boolean.TRUE, r.numbers().get("paired"));
        assertTrue((Double) r.numbers().get("power_if_equal") > 0.9, r.numbers().toString());
        assertEquals(-0.4 * CHEAP_NS, (Double) r.numbers().get("difference_ns"), 0.1 * CHEAP_NS);
    }

    @Test
    void guestClockFortyPercentCheaperFailsTheCrossClockGateOnly() {
        for (long seed : SEEDS) {
            List<String> g = gates(b -> { b.guestShift = -0.4 * CHEAP_NS; return b; }, seed);
            assertTrue(g.contains(QualityGates.CLOCK_DIVERGENT), seed + ": " + g);
            assertFalse(g.contains(QualityGates.OFF_DIVERGENT), seed + ": " + g);
        }
    }

    @Test
    void powerIsTheChanceOfPassingWhenEqual() {
        double t = Distributions.studentCritical(0.10, 11);
        assertEquals(0, QualityGates.power(0.01, 0.01, t, 11));
        // margin = (t + 1.796) se: P(|T_11| <= 1.796) = 0.90
        assertEquals(0.90, QualityGates.power((t + 1.7959) * 0.001, 0.001, t, 11), 0.002);
        assertTrue(QualityGates.power(1, 0.001, t, 11) > 0.999999);
    }
}
