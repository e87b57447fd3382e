package dev.splice.weigh.map;

import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Prediction;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What the host's memory hierarchy adds to a run (issue 12, prediction): the load and store classes
 * are priced by contexts on a hot, L1-resident buffer; a load that the catalog's cache model saw
 * served by an outer level (L2, L3) or by memory costs more by the difference between the
 * pointer-chase context whose working set fits that level and the one whose working set fits L1
 * ({@code ld.pointer-chase.l3} minus {@code ld.pointer-chase.l1}). Loads their instruction's stride
 * predicts (the catalog's {@code strided} counts) add nothing: the host's prefetchers fetch them ahead,
 * as a sequential sweep shows. A chase is a dependent chain, so the price is the miss's latency:
 * independent misses that the host overlaps cost less, which this does not credit. Stores served by an outer level are listed unpriced: the host's store buffer
 * hides most of their latency, and no context measures what is left.
 *
 * <p>The rings of the L1, L2 and L3 chases are warmed before every window, as a running program's
 * working set is warm. The cache model gives the run the host's caches to itself; on a shared host,
 * other processes evict a level between the run's time slices, and its loads are served further out:
 * the interval's high end prices a level's loads by the chase one level out.
 */
final class MemoryPrices {
    private MemoryPrices() {}

    /**
     * One line per cache level beyond the first and one for memory, loads then stores.
     *
     * @param run the run's dynamics
     * @param minus the shorter run's, or null
     * @param weights the published weights
     * @param table the context table (the chase contexts' working sets)
     * @return the lines, priced where a chase context fits the level
     */
    static List<Prediction.Line> lines(Catalog.Dynamics run, Catalog.Dynamics minus, List<ContextWeight> weights,
            ContextTable table) {
        List<Catalog.CacheLevel> levels = run.caches();
        List<Prediction.Line> out = new ArrayList<>();
        if (levels.isEmpty()) {
            return out;
        }
        Prediction.Price reference = Predictor.price(fitting(weights, table, 0, levels.get(0).sizeBytes()));
        // the chase that fits each level beyond L1, memory last (null: no context fits it)
        List<Prediction.Price> chases = new ArrayList<>();
        for (int i = 1; i <= levels.size(); i++) {
            long from = levels.get(i - 1).sizeBytes();
            long to = i == levels.size() ? Long.MAX_VALUE : levels.get(i).sizeBytes();
            chases.add(Predictor.price(fitting(weights, table, from, to)));
        }
        for (int i = 1; i <= levels.size(); i++) {
            boolean memory = i == levels.size();
            Catalog.CacheLevel here = memory ? null : levels.get(i);
            String name = memory ? "memory" : (here.workingSet() ? "W" : "L") + here.level();
            long loads = memory ? run.loadsFromMemory() - (minus == null ? 0 : minus.loadsFromMemory())
                    : levels.get(i).loads() - (minus == null ? 0 : level(minus, i).loads());
            long stores = memory ? run.storesToMemory() - (minus == null ? 0 : minus.storesToMemory())
                    : levels.get(i).stores() - (minus == null ? 0 : level(minus, i).stores());
            long strided = memory ? run.stridedFromMemory() - (minus == null ? 0 : minus.stridedFromMemory())
                    : levels.get(i).strided() - (minus == null ? 0 : level(minus, i).strided());
            String where = memory ? "memory" : here.workingSet()
                    ? "a working set of " + (here.sizeBytes() >> 10) + " KiB (a level the host does not describe)"
                    : "L" + here.level();
            Prediction.Price level = chases.get(i - 1);
            Prediction.Price outer = i < levels.size() ? chases.get(i) : null;
            if (level == null || reference == null) {
                out.add(new Prediction.Line("loads-" + name, loads - strided, null, "unpriced: no pointer-chase context "
                        + "has a working set for " + (memory ? "memory" : "this level") + (reference == null ? " and for L1" : "")));
            } else {
                List<String> contexts = new ArrayList<>(level.contexts());
                contexts.addAll(reference.contexts());
                // the model gives the run the host's caches alone: on a shared host, other processes evict
                // the level between the run's time slices, and its loads are served one level further out
                double high = outer == null ? level.highNs() : Math.max(level.highNs(), outer.highNs());
                if (outer != null) {
                    contexts.addAll(outer.contexts());
                }
                Prediction.Price extra = new Prediction.Price(level.ns() - reference.ns(),
                        level.lowNs() - reference.highNs(), high - reference.lowNs(), contexts);
                out.add(new Prediction.Line("loads-" + name, loads - strided, extra, "loads the cache model saw served "
                        + "by " + where + " that no stride predicts; ns: a chase there minus a chase in L1"
                        + (outer == null ? "" : " (high: a chase one level out, where a shared host's other "
                                + "processes leave them)")));
            }
            out.add(new Prediction.Line("strided-loads-" + name, strided, new Prediction.Price(0, 0, 0, List.of()),
                    "loads served by " + where + " that their instruction's stride predicts: the host's prefetchers "
                            + "hide them (priced by their class alone)"));
            out.add(new Prediction.Line("stores-" + name, stores, null,
                    "unpriced: stores the cache model saw served there (no context; the store buffer hides most)"));
        }
        return out;
    }

    /** The shorter run's level {@code i} (a run on another host may model fewer levels: none then). */
    private static Catalog.CacheLevel level(Catalog.Dynamics d, int i) {
        return i < d.caches().size() ? d.caches().get(i) : new Catalog.CacheLevel(0, 0, 0, 0, 0, 0, 0, false);
    }

    /** The pointer-chase contexts whose working set lies in (from, to] (bytes). */
    static List<ContextWeight> fitting(List<ContextWeight> weights, ContextTable table, long from, long to) {
        List<ContextWeight> out = new ArrayList<>();
        for (ContextWeight w : weights) {
            OptionalLong ws = table.context(w.context()).map(Context::workingSetBytes).orElse(OptionalLong.empty());
            if (ws.isPresent() && ws.getAsLong() > from && ws.getAsLong() <= to) {
                out.add(w);
            }
        }
        return out;
    }
}
