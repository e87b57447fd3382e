package dev.splice.weigh.model;

import java.util.List;
import java.util.Map;

/**
 * Everything the model publishes about a campaign.
 *
 * @param funnel pair counts in filter order (insertion-ordered)
 * @param batchBalance kept pairs per batch size
 * @param orderBalance kept pairs per order (AB, BA)
 * @param interrupts the campaign's background of interrupt events
 * @param zeroMarginNs the practical-zero margin (ns): {@link WeighModel#ZERO_MARGIN_REL} of the cheapest
 *     context whose band lies above zero (0 when there is none)
 * @param zeroReference that cheapest context, or null
 */
public record ModelResult(
        List<String> runs,
        List<ContextResult> contexts,
        SimultaneousBand band,
        ModelOptions options,
        Map<String, Long> funnel,
        Map<Integer, Long> batchBalance,
        Map<String, Long> orderBalance,
        List<BadRow> badRows,
        Map<String, Integer> gateFailures,
        Interrupts.Background interrupts,
        double zeroMarginNs,
        String zeroReference) {
    /** @return the number of high-confidence contexts */
    public long highQuality() {
        return contexts.stream().filter(ContextResult::highQuality).count();
    }
}
