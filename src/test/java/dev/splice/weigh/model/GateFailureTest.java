package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.PairRow;
import dev.splice.weigh.campaign.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each quality gate fires on a campaign built to fail it; a well-behaved campaign passes them all. */
class GateFailureTest {
    static final int B = 49;

    static ModelResult model(SyntheticCampaign s) {
        return model(s.campaign());
    }

    static ModelResult model(Campaign c) {
        return WeighModel.run(c, ModelOptions.defaults().withReplicates(B).withThreads(2).withSeed(3));
    }

    static SyntheticCampaign base() {
        return SyntheticCampaign.typical(2, 99);
    }

    @Test
    void wellBehavedCampaignPassesEveryGate() {
        ModelResult r = model(base());
        for (ContextResult c : r.contexts()) {
            assertTrue(c.highQuality(), c.context() + " " + c.reasons());
        }
    }

    static Stream<Arguments> failing() {
        List<Arguments> cases = new ArrayList<>();
        add(cases, QualityGates.RUN_IRLS_NOT_CONVERGED, b -> { b.exactRun = true; return b; });
        add(cases, QualityGates.HETEROGENEITY, b -> { b.runSd = 1.0; return b; });
        add(cases, QualityGates.ORDER, b -> { b.order = 0.6; return b; });
        add(cases, QualityGates.DRIFT, b -> { b.drift = 0.8; return b; });
        // Curvature in 1/N: a per-window fixed cost (overheadNs) is the model itself and passes.
        add(cases, QualityGates.BATCH, b -> { b.slope = 1.0; return b; });
        add(cases, QualityGates.OFF_DIVERGENT, b -> { b.offShift = 1.5; return b; });
        add(cases, QualityGates.OFF_UNAVAILABLE, b -> { b.pluginOff = false; return b; });
        add(cases, QualityGates.CLOCK_DIVERGENT, b -> { b.guestShift = 1.5; return b; });
        add(cases, QualityGates.CLOCK_UNAVAILABLE, b -> { b.guestClock = false; return b; });
        add(cases, QualityGates.CI_TOO_WIDE, b -> { b.sd = 8; b.contamination = 0; return b; });
        add(cases, QualityGates.ESS_LOW, b -> { b.runs = 2; b.rounds = 3; return b; });
        return cases.stream();
    }

    private static void add(List<Arguments> cases, String gate, UnaryOperator<SyntheticCampaign.Builder> edit) {
        cases.add(Arguments.of(gate, edit));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failing")
    void gateFires(String gate, UnaryOperator<SyntheticCampaign.Builder> edit) {
        ModelResult r = model(base().with(edit));
        for (ContextResult c : r.contexts()) {
            assertTrue(c.reasons().stream().anyMatch(x -> x.gate().equals(gate)),
                    c.context() + " should fail " + gate + " but has " + c.reasons());
            assertFalse(c.highQuality());
            Reason reason = c.reasons().stream().filter(x -> x.gate().equals(gate)).findFirst().orElseThrow();
            assertFalse(reason.numbers().isEmpty(), "a failure carries its numbers");
        }
        assertTrue(r.gateFailures().getOrDefault(gate, 0) == r.contexts().size());
    }

    @Test
    void referenceCycleIsUnidentifiable() {
        SyntheticCampaign s = base().with(b -> {
            b.baselines = new String[] {"op001.dependency", "op000.dependency"};
            return b;
        });
        ModelResult r = model(s);
        for (ContextResult c : r.contexts()) {
            assertEquals("unidentifiable", c.publication().label());
            assertTrue(c.resolution().error().startsWith("reference cycle"), c.resolution().error());
            assertTrue(c.weight() == null && Double.isNaN(c.estimate()));
        }
    }

    @Test
    void absentReferenceIsUnidentifiable() {
        SyntheticCampaign s = base().with(b -> {
            b.baselines = new String[] {"nop.shape", "mul.dependency"};
            return b;
        });
        Campaign c = s.campaign();
        Campaign withManifest = new Campaign(c.pairs(), c.offPairs(), c.badRows(), Set.of("mul.dependency"), true);
        ModelResult r = model(withManifest);
        assertTrue(r.contexts().get(0).resolution().identifiable());
        assertTrue(r.contexts().get(1).resolution().error().startsWith("absent reference"));
        // Without the manifest, mul.dependency is just a shape: a zero reference.
        assertTrue(model(c).contexts().get(1).resolution().identifiable());
    }

    @Test
    void ambiguousReferenceIsUnidentifiable() {
        Campaign c = base().campaign();
        List<PairRow> pairs = new ArrayList<>();
        int i = 0;
        for (PairRow p : c.pairs()) {
            boolean other = p.context().equals("op001.dependency") && i++ % 2 == 0;
            pairs.add(new PairRow(p.run(), p.context(), other ? "nop.other-shape" : p.baseline(), p.key(), p.batch(),
                    p.order(), p.round(), p.position(), p.windows(), p.probeNs(), p.baselineNs(), p.probeGuestNs(),
                    p.baselineGuestNs(), p.translations()));
        }
        ModelResult r = model(new Campaign(pairs, c.offPairs(), List.of(), Set.of(), true));
        assertTrue(r.contexts().get(0).resolution().identifiable());
        assertTrue(r.contexts().get(1).resolution().error().startsWith("ambiguous reference"));
        assertTrue(r.contexts().get(1).reasons().stream().anyMatch(x -> x.gate().equals(QualityGates.UNIDENTIFIABLE)));
    }
}
