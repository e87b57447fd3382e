package dev.splice.weigh.report;

import dev.splice.weigh.campaign.Mapping;
import dev.splice.weigh.campaign.Weights;
import java.util.List;
import java.util.Map;

/**
 * Everything the HTML report of one campaign shows: the published weights, the model's per-context
 * diagnostics, and optionally the mapping of the weights onto a program's catalog.
 *
 * @param weights what the model publishes (weights.json)
 * @param summary the report's summary lines, plain text
 * @param balance kept pairs per batch size and per order, labelled
 * @param diagnostics per context name (the weights' contexts), its diagnostics; a context without
 *     a fit has none
 * @param mapping the weights mapped onto a catalog, or null
 */
public record ReportData(Weights weights, List<String> summary, Map<String, Long> balance,
        Map<String, Diagnostics> diagnostics, Mapping mapping) {
    /**
     * Copies the collections, keeping their order.
     *
     * @param weights see {@link #weights()}
     * @param summary see {@link #summary()}
     * @param balance see {@link #balance()}
     * @param diagnostics see {@link #diagnostics()}
     * @param mapping see {@link #mapping()}
     */
    public ReportData {
        summary = List.copyOf(summary);
        balance = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(balance));
        diagnostics = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(diagnostics));
    }

    /**
     * The same report with a catalog mapping.
     *
     * @param m the mapping
     * @return the report with its catalog panels
     */
    public ReportData withMapping(Mapping m) {
        return new ReportData(weights, summary, balance, diagnostics, m);
    }
}
