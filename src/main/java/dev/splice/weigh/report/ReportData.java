package dev.splice.weigh.report;

import dev.splice.weigh.campaign.CoverageTable;
import dev.splice.weigh.campaign.Mapping;
import dev.splice.weigh.campaign.PredictionSummary;
import dev.splice.weigh.campaign.Weights;
import java.util.List;
import java.util.Map;

/**
 * Everything the HTML report of one campaign shows: the published weights, the model's per-context
 * diagnostics, and optionally the mapping of the weights onto a program's catalog, the band's
 * simulated coverage and predictions of programs' run time.
 *
 * @param weights what the model publishes (weights.json)
 * @param summary the report's summary lines, plain text
 * @param balance kept pairs per batch size and per order, labelled
 * @param diagnostics per context name (the weights' contexts), its diagnostics; a context without
 *     a fit has none
 * @param mapping the weights mapped onto a catalog, or null
 * @param coverage the coverage simulation's table ({@code bench/weigh-coverage.sh}), or null
 * @param predictions {@code weigh predict --json} outputs to show, possibly none
 */
public record ReportData(Weights weights, List<String> summary, Map<String, Long> balance,
        Map<String, Diagnostics> diagnostics, Mapping mapping, CoverageTable coverage, List<PredictionSummary> predictions) {
    /**
     * Copies the collections, keeping their order.
     *
     * @param weights see {@link #weights()}
     * @param summary see {@link #summary()}
     * @param balance see {@link #balance()}
     * @param diagnostics see {@link #diagnostics()}
     * @param mapping see {@link #mapping()}
     * @param coverage see {@link #coverage()}
     * @param predictions see {@link #predictions()}
     */
    public ReportData {
        summary = List.copyOf(summary);
        balance = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(balance));
        diagnostics = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(diagnostics));
        predictions = List.copyOf(predictions);
    }

    /**
     * The same report with the optional inputs' panels.
     *
     * @param m the weights mapped onto a catalog, or null
     * @param c the coverage simulation's table, or null
     * @param p predictions to show, possibly none
     * @return the report with those panels
     */
    public ReportData with(Mapping m, CoverageTable c, List<PredictionSummary> p) {
        return new ReportData(weights, summary, balance, diagnostics, m, c, p);
    }
}
