package dev.splice.weigh.model;

import dev.splice.weigh.campaign.BadRow;
import java.util.List;
import java.util.Map;

/**
 * Everything the model publishes about a campaign.
 *
 * @param funnel pair counts in filter order (insertion-ordered)
 * @param batchBalance kept pairs per batch size
 * @param orderBalance kept pairs per order (AB, BA)
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
        Map<String, Integer> gateFailures) {
    public long highQuality() {
        return contexts.stream().filter(ContextResult::highQuality).count();
    }
}
