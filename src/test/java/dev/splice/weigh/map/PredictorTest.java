package dev.splice.weigh.map;

import static dev.splice.weigh.map.CatalogMapperTest.w;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Prediction;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Block prices on hand-made weights and a hand-made run of returns. */
class PredictorTest {
    /** A run of 1000 returns ({@code c.jr ra}), each looked up and held by the jump cache. */
    private static Catalog returns() {
        Catalog.Dynamics d = new Catalog.Dynamics(List.of(new Catalog.Exit("return", 1000)), 0, 0, 1000, 0, List.of(),
                0, 0, 0);
        return new Catalog(new Catalog.Origin("returns", List.of(), 0, 1),
                List.of(new Catalog.Entry("c.jr", "c", 1, 1000, 1000, 1)),
                List.of(new Catalog.Block("return", 1, 1000)), List.of(), d);
    }

    private static Prediction.Line line(Prediction p, String name) {
        return p.blocks().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * The compressed return context's kernel loses a tenth of its lookups to jump-cache collisions: with
     * the full form published, a return is priced by {@code jalr.ret} alone, though {@code c.jr.ret}'s
     * band is the narrower (the precision-weighted mean of both would be near 10 ns).
     */
    @Test
    void returnsArePricedByTheFullFormWhenItIsPublished() {
        List<ContextWeight> ws = List.of(w("jalr.ret", 7.0, 0.5, true), w("c.jr.ret", 10.0, 0.2, true));
        Prediction p = Predictor.predict(ws, returns(), null);
        assertEquals(7.0, line(p, "return").price().ns(), 1e-12);
        assertEquals(List.of("jalr.ret"), line(p, "return").price().contexts());
        assertEquals(7.0e-6, p.predictedS(), 1e-15);
    }

    @Test
    void theCompressedFormPricesReturnsWhenTheFullOneIsNotPublished() {
        Prediction p = Predictor.predict(List.of(w("c.jr.ret", 10.0, 0.2, true)), returns(), null);
        assertEquals(10.0, line(p, "return").price().ns(), 1e-12);
    }
}
