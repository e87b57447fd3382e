package dev.splice.weigh.map;

import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.Prediction;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The time a translated block's dependence chains add beyond its throughput: the host runs the
 * block's independent work in parallel, so a block costs the sum of its instructions' throughput
 * prices and its exit, unless its longest chain of dependent instructions, each at its latency price,
 * takes longer; then the difference is added. {@code count_loop}'s four ALU instructions are three
 * short chains that overlap with the block's exit; a kernel of 512 dependent {@code addi} is one
 * chain, and its cost is the chain's.
 */
final class CriticalPaths {
    private CriticalPaths() {}

    /**
     * Prices of one end of the interval (point, low or high).
     *
     * @param throughput per class key, its throughput price (absent: unpriced, 0)
     * @param latency per class key, its latency price (absent: unpriced, 0)
     * @param block per block kind, its price (absent: unpriced, 0)
     * @param blockEnding classes priced by the block they end (no price of their own here)
     */
    record Prices(Map<String, Prediction.Price> throughput, Map<String, Prediction.Price> latency,
            Map<String, Prediction.Price> block, java.util.Set<String> blockEnding) {}

    /**
     * The excess of the blocks' critical paths over their throughput, summed over their entries.
     *
     * @param blocks the catalog's translated blocks
     * @param prices the prices
     * @return {@code {point, low, high}} in ns
     */
    static double[] excess(List<Catalog.TranslatedBlock> blocks, Prices prices) {
        double[] out = new double[3];
        List<ToDoubleFunction<Prediction.Price>> ends =
                List.of(Prediction.Price::ns, Prediction.Price::lowNs, Prediction.Price::highNs);
        for (Catalog.TranslatedBlock b : blocks) {
            for (int e = 0; e < 3; e++) {
                out[e] += b.entered() * excess(b, prices, ends.get(e));
            }
        }
        return out;
    }

    /** One entry's excess of block {@code b} with the prices' end {@code end}. */
    static double excess(Catalog.TranslatedBlock b, Prices prices, ToDoubleFunction<Prediction.Price> end) {
        int n = b.keys().size();
        double[] chain = new double[n];
        double longest = 0;
        double sum = price(prices.block(), b.kind(), end);
        for (int i = 0; i < n; i++) {
            String key = b.keys().get(i);
            boolean ending = prices.blockEnding().contains(key);
            double before = 0;
            for (int p : b.producers().get(i)) {
                before = Math.max(before, chain[p]);
            }
            chain[i] = before + (ending ? 0 : price(prices.latency(), key, end));
            longest = Math.max(longest, chain[i]);
            sum += ending ? 0 : price(prices.throughput(), key, end);
        }
        return Math.max(0, longest - sum);
    }

    private static double price(Map<String, Prediction.Price> m, String key, ToDoubleFunction<Prediction.Price> end) {
        Prediction.Price p = m.get(key);
        return p == null ? 0 : end.applyAsDouble(p);
    }
}
