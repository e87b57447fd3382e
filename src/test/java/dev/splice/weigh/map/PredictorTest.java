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
        return returnsTouching(-1);
    }

    /** {@link #returns()} that touched {@code pages} pages (-1: a catalog that does not count them). */
    private static Catalog returnsTouching(long pages) {
        return returnsWith(pages, -1);
    }

    /**
     * {@link #returns()} that touched {@code pages} pages and in which the predictor model mispredicted
     * {@code mispredicted} branches (-1: a catalog that does not count them).
     */
    private static Catalog returnsWith(long pages, long mispredicted) {
        Catalog.Dynamics d = new Catalog.Dynamics(List.of(new Catalog.Exit("return", 1000)), 0, 0, 1000, 0, List.of(),
                0, 0, 0, pages, mispredicted);
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

    /**
     * A run of 1000 returns and 1000 loads that the cache model saw served by L1 (48 KiB): the loads are
     * priced by the load's own contexts. The memory chase (a 128 MiB ring) prices loads served by memory,
     * in the memory lines; in the class's price its band once bounded every load by memory's latency
     * (lua's 69 M {@code c.ld} gave an interval of [0.31, 55.8] s for a 0.66 s prediction).
     */
    @Test
    void loadsServedByTheFirstLevelAreNotBoundedByAChaseBeyondIt() {
        Catalog.CacheLevel l1 = new Catalog.CacheLevel(1, 48 << 10, 12, 64, 1000, 0, 0, false);
        Catalog.Dynamics d = new Catalog.Dynamics(List.of(new Catalog.Exit("return", 1000)), 0, 0, 1000, 0, List.of(l1),
                0, 0, 0, -1, -1);
        Catalog run = new Catalog(new Catalog.Origin("loads", List.of(), 0, 1),
                List.of(new Catalog.Entry("c.jr", "c", 1, 1000, 1000, 1), new Catalog.Entry("ld", "i", 1, 1000, 1000, 1)),
                List.of(new Catalog.Block("return", 1, 1000)), List.of(), d);
        List<ContextWeight> ws = List.of(w("jalr.ret", 7.0, 0.5, true), w("ld.hot-load", 0.1, 0.02, true),
                w("ld.pointer-chase.memory", 300.0, 300.0, true));
        Prediction p = Predictor.predict(ws, run, null);
        Prediction.Line ld = p.classes().stream().filter(l -> l.name().equals("ld")).findFirst().orElseThrow();
        assertEquals(List.of("ld.hot-load"), ld.price().contexts());
        assertEquals(0.12, ld.price().highNs(), 1e-12);
        assertEquals((1000 * 7.0 + 1000 * 0.1) * 1e-9, p.predictedS(), 1e-15);
        assertEquals((1000 * 7.5 + 1000 * 0.12) * 1e-9, p.highS(), 1e-15);
    }

    /**
     * The pages a run touched are listed by difference; without a published {@code sd.first-touch}
     * they are unpriced.
     */
    @Test
    void touchedPagesAreListedUnpricedByTheirDifference() {
        Prediction p = Predictor.predict(List.of(w("jalr.ret", 7.0, 0.5, true)), returnsTouching(1900),
                returnsTouching(150));
        Prediction.Line pages = p.memory().stream().filter(l -> l.name().equals("pages-touched")).findFirst().orElseThrow();
        assertEquals(1750, pages.count());
        assertEquals(null, pages.price());
        assertEquals(0.0, p.predictedS(), 1e-15, "the returns cancel, and the pages add nothing");
        // a catalog that does not count pages (an older plugin's) gives no line
        assertEquals(List.of(), Predictor.predict(List.of(w("jalr.ret", 7.0, 0.5, true)), returns(), null).memory()
                .stream().filter(l -> l.name().equals("pages-touched")).toList());
    }

    /**
     * Mispredicted branches are listed by difference and priced at twice {@code beq.mispredicted} minus
     * {@code bne.predicted} (weights are against the root baseline; the coin's slots are mispredicted
     * half the time, the baseline's never), the band's ends from opposite ends; neither context prices a
     * {@code beq} or {@code bne} class. Without either context they are unpriced; a catalog that does
     * not count them gives no line.
     */
    @Test
    void mispredictedBranchesCostTwiceTheFairCoinsContrast() {
        List<ContextWeight> ws = List.of(w("jalr.ret", 7.0, 0.5, true), w("beq.mispredicted", 6.5, 0.25, true),
                w("bne.predicted", 3.0, 0.05, true));
        Prediction p = Predictor.predict(ws, returnsWith(-1, 5000), returnsWith(-1, 1000));
        Prediction.Line m = line(p, "branch-mispredicted");
        assertEquals(4000, m.count());
        assertEquals(7.0, m.price().ns(), 1e-12);
        assertEquals(2 * (6.25 - 3.05), m.price().lowNs(), 1e-12);
        assertEquals(2 * (6.75 - 2.95), m.price().highNs(), 1e-12);
        assertEquals(4000 * 7.0e-9, p.predictedS(), 1e-15, "the returns cancel");
        assertEquals(List.of(), p.classes().stream().filter(l -> l.name().equals("beq") || l.name().equals("bne"))
                .toList());
        Prediction unpriced = Predictor.predict(List.of(w("jalr.ret", 7.0, 0.5, true), w("beq.mispredicted", 6.5,
                0.25, true)), returnsWith(-1, 5000), null);
        assertEquals(null, line(unpriced, "branch-mispredicted").price());
        assertEquals(7.0e-6, unpriced.predictedS(), 1e-15);
        assertEquals(List.of(), Predictor.predict(ws, returns(), null).blocks().stream()
                .filter(l -> l.name().equals("branch-mispredicted")).toList());
    }
}
