package dev.splice.weigh.model;

import dev.splice.base.AtomicFiles;
import dev.splice.weigh.campaign.BadRow;
import dev.splice.weigh.campaign.Weights;
import java.nio.file.Path;
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

    /**
     * What the model publishes.
     *
     * @return the weights ({@code weights.json})
     */
    public Weights weights() {
        return PublishedWeights.of(this);
    }

    /**
     * Writes {@code weights.json}, {@code weights.csv}, {@code report.md} and {@code report.html},
     * each through a temporary file and a rename.
     *
     * @param dir the output directory
     */
    public void writeTo(Path dir) {
        weights().writeTo(dir);
        AtomicFiles.write(dir.resolve("report.md"), Report.markdown(this));
        AtomicFiles.write(dir.resolve("report.html"), Report.html(this));
    }
}
