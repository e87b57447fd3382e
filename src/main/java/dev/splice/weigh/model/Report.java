package dev.splice.weigh.model;

import dev.splice.weigh.campaign.Reason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** report.md and report.html (one self-contained file with inline SVG pictures). */
final class Report {
    private Report() {}

    private static String n(double v, int digits) {
        return PublishedWeights.fixed(v, digits);
    }

    private static Map<String, Long> quality(ModelResult r) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("high-confidence", r.highQuality());
        m.put("low-confidence", r.contexts().size() - r.highQuality());
        return m;
    }

    private static Map<String, Long> batches(ModelResult r) {
        Map<String, Long> m = new LinkedHashMap<>();
        r.batchBalance().forEach((k, v) -> m.put("batch=" + k, v));
        r.orderBalance().forEach(m::put);
        return m;
    }

    private static List<String> summary(ModelResult r) {
        SimultaneousBand b = r.band();
        double[] ratios = java.util.Arrays.stream(b.widthRatio()).filter(Double::isFinite).sorted().toArray();
        List<String> s = new ArrayList<>();
        s.add(r.runs().size() + " runs, " + r.contexts().size() + " contexts, " + r.funnel().get("pairs_read")
                + " pairs read, " + r.funnel().get("pairs_kept") + " kept");
        s.add("quality: " + r.highQuality() + " high-confidence, " + (r.contexts().size() - r.highQuality()) + " low-confidence");
        s.add("wild cluster bootstrap over runs (Webb weights): " + b.valid() + " replicates, seed "
                + r.options().seed() + "; per-estimate level " + n(b.alpha(), 6) + " (worth "
                + n(b.effectiveEstimates(), 1) + " independent estimates)");
        s.add("simultaneous 95% critical value c = " + n(b.critical(), 4) + " (Student t, " + (r.runs().size() - 1)
                + " df; Monte Carlo SE " + n(b.criticalMcSe(), 4) + "; SE of its coverage probability "
                + n(b.probabilityMcSe(), 5) + ")");
        Interrupts.Background bg = r.interrupts();
        s.add("interrupts: " + n(bg.ratePerNs() * 1e6, 3) + " events per ms of CPU time, mean " + n(bg.meanSize() / 1e3, 1)
                + " us (" + bg.events() + " events); practical zero +-" + n(r.zeroMarginNs(), 4) + " ns ("
                + (r.zeroReference() == null ? "no context above zero" : WeighModel.ZERO_MARGIN_REL + " of " + r.zeroReference())
                + ")");
        s.add("with the first 99 replicates c = " + n(b.critical99(), 4) + "; width ratio B/99: median "
                + n(PublishedWeights.quantile(ratios, 0.5), 4) + ", 95th percentile " + n(PublishedWeights.quantile(ratios, 0.95), 4));
        return s;
    }

    static String markdown(ModelResult r) {
        StringBuilder sb = new StringBuilder("# Instruction weights\n\n");
        for (String line : summary(r)) {
            sb.append("- ").append(line).append('\n');
        }
        sb.append("\n## Pair filter funnel\n\n| step | pairs |\n|---|---:|\n");
        r.funnel().forEach((k, v) -> sb.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        sb.append("\n## Batch and order balance (kept pairs)\n\n| level | pairs |\n|---|---:|\n");
        batches(r).forEach((k, v) -> sb.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        sb.append("\n## Quality gate failures\n\nA context can fail several gates; counts do not add up.\n\n| gate | contexts |\n|---|---:|\n");
        r.gateFailures().entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(e -> sb.append("| ").append(e.getKey()).append(" | ").append(e.getValue()).append(" |\n"));
        sb.append("\n## Bootstrap convergence\n\n| replicates | critical value |\n|---:|---:|\n");
        for (double[] row : r.band().convergence()) {
            sb.append("| ").append((int) row[0]).append(" | ").append(n(row[1], 4)).append(" |\n");
        }
        if (!r.badRows().isEmpty()) {
            sb.append("\n## Skipped bad rows (").append(r.badRows().size()).append(")\n\n");
            r.badRows().stream().limit(50).forEach(b -> sb.append("- ").append(b).append('\n'));
        }
        sb.append("\n## Contexts\n\nEstimates in ns per target instruction; the interval is the simultaneous 95% band.\n\n");
        sb.append("| context | estimate | interval | weight | quality | ESS | kept | removed | reasons |\n|---|---:|---|---:|---|---:|---:|---:|---|\n");
        for (ContextResult c : r.contexts()) {
            sb.append("| ").append(c.context()).append(" | ").append(n(c.estimate(), 4)).append(" | [")
                    .append(n(c.ciLow(), 4)).append(", ").append(n(c.ciHigh(), 4)).append("] | ")
                    .append(c.weight() == null ? c.publication().label() : n(c.weight(), 4)).append(" | ")
                    .append(c.highQuality() ? "high" : "low").append(" | ").append(n(c.analysis().ess(), 1)).append(" | ")
                    .append(c.analysis().data().size()).append(" | ").append(c.analysis().data().pairsRemovedTranslations())
                    .append(" | ").append(String.join(", ", c.reasons().stream().map(Reason::gate).toList())).append(" |\n");
        }
        return sb.toString();
    }

    static String html(ModelResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Instruction weights</title>\n")
                .append("<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}")
                .append("table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}")
                .append("td.n{text-align:right}.log{display:none}#logscale:checked~.lin{display:none}")
                .append("#logscale:checked~.log{display:block}</style></head><body>\n<h1>Instruction weights</h1>\n<ul>");
        for (String line : summary(r)) {
            sb.append("<li>").append(Svg.esc(line)).append("</li>");
        }
        sb.append("</ul>\n<h2>Estimates and simultaneous 95% intervals</h2>\n")
                .append("<p>Green: high-confidence (all gates pass); orange: low-confidence.</p>\n")
                .append("<input type=\"checkbox\" id=\"logscale\"><label for=\"logscale\"> log scale</label>\n");
        List<Svg.Row> rows = new ArrayList<>();
        r.contexts().stream().sorted(Comparator.comparingDouble(c -> Double.isFinite(c.estimate()) ? c.estimate() : Double.MAX_VALUE))
                .forEach(c -> rows.add(new Svg.Row(c.context(), c.estimate(), c.ciLow(), c.ciHigh(), c.highQuality())));
        sb.append("<div class=\"lin\">").append(Svg.forest(rows, false)).append("</div>\n");
        sb.append("<div class=\"log\">").append(Svg.forest(rows, true)).append("</div>\n");
        sb.append("<h2>Model quality</h2>\n").append(Svg.bars(quality(r), "#4d9221"));
        Map<String, Integer> fails = new LinkedHashMap<>();
        r.gateFailures().entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(e -> fails.put(e.getKey(), e.getValue()));
        sb.append("<h2>Quality gate failures</h2>\n<p>A context can fail several gates; counts do not add up.</p>\n")
                .append(fails.isEmpty() ? "<p>No failures.</p>" : Svg.bars(fails, "#d6604d"));
        sb.append("<h2>Pair filter funnel</h2>\n").append(Svg.bars(r.funnel(), "#4393c3"));
        sb.append("<h2>Batch and order balance</h2>\n").append(Svg.bars(batches(r), "#8073ac"));
        sb.append("<h2>Bootstrap convergence</h2>\n<p>Critical value of the simultaneous band from the first b replicates.</p>\n")
                .append(Svg.line(r.band().convergence(), "replicates", "critical value c"));
        sb.append("<h2>Contexts</h2>\n<table><tr><th>context</th><th>estimate ns</th><th>interval</th><th>weight</th>")
                .append("<th>quality</th><th>ESS</th><th>kept</th><th>removed</th><th>reasons</th></tr>\n");
        for (ContextResult c : r.contexts()) {
            sb.append("<tr><td>").append(Svg.esc(c.context())).append("</td><td class=\"n\">").append(n(c.estimate(), 4))
                    .append("</td><td>[").append(n(c.ciLow(), 4)).append(", ").append(n(c.ciHigh(), 4)).append("]</td><td class=\"n\">")
                    .append(c.weight() == null ? Svg.esc(c.publication().label()) : n(c.weight(), 4)).append("</td><td>")
                    .append(c.highQuality() ? "high" : "low").append("</td><td class=\"n\">").append(n(c.analysis().ess(), 1))
                    .append("</td><td class=\"n\">").append(c.analysis().data().size()).append("</td><td class=\"n\">")
                    .append(c.analysis().data().pairsRemovedTranslations()).append("</td><td>")
                    .append(Svg.esc(String.join(", ", c.reasons().stream().map(Reason::gate).toList()))).append("</td></tr>\n");
        }
        sb.append("</table>\n</body></html>\n");
        return sb.toString();
    }
}
