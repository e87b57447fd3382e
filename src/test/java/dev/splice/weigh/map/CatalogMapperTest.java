package dev.splice.weigh.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Mapping;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The publication policies on hand-made weights. */
class CatalogMapperTest {
    static ContextWeight w(String ctx, double est, double half, boolean high) {
        ContextWeight.Check none = new ContextWeight.Check(0, Double.NaN, Double.NaN, null);
        return new ContextWeight(ctx, null, "nop.baseline", est, est - half, est + half, est, false,
                ContextWeight.Publication.ESTIMATE, high, List.of(), Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, est,
                Double.NaN, Double.NaN, Double.NaN, List.of(), null, Map.of(),
                new ContextWeight.Irls(true, 1, Double.NaN, null), Double.NaN,
                new ContextWeight.Outliers(0), new ContextWeight.Interrupts(0, Double.NaN, Double.NaN, Double.NaN),
                Double.NaN, List.of(),
                new ContextWeight.Heterogeneity(Double.NaN, Double.NaN, Double.NaN, 0), none, none);
    }

    @Test
    void policies() {
        Catalog cat = new Catalog(List.of(
                new Catalog.Entry("div", null, 5, 100, -1, -1),
                new Catalog.Entry("beq", null, -1, -1, 7, -1),
                new Catalog.Entry("addi", null, -1, -1, 7, -1),
                new Catalog.Entry("fdiv.d", null, -1, -1, 7, -1),
                new Catalog.Entry("fence.i", null, -1, -1, 1, -1),
                new Catalog.Entry("rdtime", null, -1, -1, 1, -1),
                new Catalog.Entry("c.ebreak", null, -1, -1, 1, -1),
                new Catalog.Entry("cbo.zero", null, -1, -1, 1, -1),
                new Catalog.Entry("mystery", "zicsr", -1, -1, 1, -1)));
        List<ContextWeight> ws = List.of(
                w("div.dependency", 4.5, 0.1, true),
                w("div.independent", 4.55, 0.1, true),
                w("beq.taken", 3.3, 0.1, true),
                w("beq.not-taken", 2.4, 0.1, true),
                w("addi.independent", 0.31, 0.02, false),
                w("fdiv.d.dependency.nx-set", 6.5, 0.2, true),
                w("fence.i.sync", 30, 1, true),
                w("rdtime.read", 1700, 10, true),
                w("sc.d.reservation-pair", 3.5, 0.1, true));
        Mapping m = CatalogMapper.map(ws, cat);
        assertEquals("strict", m.classes().get(0).status().label());
        assertEquals(4.525, m.classes().get(0).strictNs(), 1e-12);
        assertEquals("context-dependent", m.classes().get(1).status().label());
        assertNull(m.classes().get(1).measuredNs());
        assertEquals("exploratory", m.classes().get(2).status().label());
        assertNull(m.classes().get(2).strictNs());
        assertEquals(0.31, m.classes().get(2).measuredNs(), 1e-12);
        assertEquals("strict", m.classes().get(3).status().label(), "fdiv.d.dependency.nx-set belongs to fdiv.d");
        assertEquals("strict", m.classes().get(4).status().label(), "fence.i is not restricted");
        assertEquals("restricted", m.classes().get(5).status().label());
        assertEquals("restricted", m.classes().get(6).status().label());
        assertEquals("restricted", m.classes().get(7).status().label());
        assertEquals("restricted", m.classes().get(8).status().label());
        assertEquals(1, m.orphans().size());
        assertEquals("sc.d.reservation-pair", m.orphans().get(0).context());
    }
}
