package dev.splice.weigh.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.splice.weigh.campaign.Catalog;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The publication policies on hand-made weights. */
class CatalogMapperTest {
    static CatalogMapper.Weight w(String ctx, double est, double half, boolean high) {
        return new CatalogMapper.Weight(ctx, null, est, est - half, est + half, est, high, "estimate");
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
        List<CatalogMapper.Weight> ws = List.of(
                w("div.dependency", 4.5, 0.1, true),
                w("div.independent", 4.55, 0.1, true),
                w("beq.taken", 3.3, 0.1, true),
                w("beq.not-taken", 2.4, 0.1, true),
                w("addi.independent", 0.31, 0.02, false),
                w("fdiv.d.dependency.nx-set", 6.5, 0.2, true),
                w("fence.i.sync", 30, 1, true),
                w("rdtime.read", 1700, 10, true),
                w("sc.d.reservation-pair", 3.5, 0.1, true));
        CatalogMapper.Mapping m = CatalogMapper.map(ws, cat);
        assertEquals("strict", m.classes().get(0).status());
        assertEquals(4.525, m.classes().get(0).strictNs(), 1e-12);
        assertEquals("context-dependent", m.classes().get(1).status());
        assertNull(m.classes().get(1).measuredNs());
        assertEquals("exploratory", m.classes().get(2).status());
        assertNull(m.classes().get(2).strictNs());
        assertEquals(0.31, m.classes().get(2).measuredNs(), 1e-12);
        assertEquals("strict", m.classes().get(3).status(), "fdiv.d.dependency.nx-set belongs to fdiv.d");
        assertEquals("strict", m.classes().get(4).status(), "fence.i is not restricted");
        assertEquals("restricted", m.classes().get(5).status());
        assertEquals("restricted", m.classes().get(6).status());
        assertEquals("restricted", m.classes().get(7).status());
        assertEquals("restricted", m.classes().get(8).status());
        assertEquals(1, m.orphans().size());
        assertEquals("sc.d.reservation-pair", m.orphans().get(0).context());
    }
}
