package dev.splice.weigh.report;

import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.CoverageTable;
import dev.splice.weigh.campaign.Mapping;
import dev.splice.weigh.campaign.PredictionSummary;
import dev.splice.weigh.campaign.Reason;
import dev.splice.weigh.campaign.Weights;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code report.html}: one self-contained page (inline SVG, no scripts, no network) of a campaign's
 * weights and the model's diagnostics, panel by panel as docs/weigh-model.md describes. The same
 * data gives the same bytes.
 */
public final class HtmlReport {
    /** Contexts at or above this cost (ns) go to the slow-path panel (seed 003 section 11.6). */
    public static final double SLOW_NS = 20;
    /** The fast-path panel's mnemonics (baselines aside): seed 003 section 11.5's representative instructions. */
    public static final Set<String> FAST_PATH = Set.of("addi", "mul", "ld", "sd", "beq", "amoadd.d", "sc.d", "div", "rem",
            "fadd.d", "fmul.d", "fdiv.d", "fdiv.s");
    /** Position bins of the event-rate panels. */
    static final int POSITION_BINS = 10;
    /** Two-sided 95% normal quantile for pointwise intervals (per-run estimates, effects). */
    static final double Z95 = 1.959963984540054;

    private static final String STYLE = "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
            + "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}"
            + "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3;position:sticky;top:0}"
            + ".diag{display:none;border:2px solid #2166ac;padding:0 1em 1em;margin:1em 0}.diag:target{display:block}"
            + "nav a{margin-right:1em}.fig{overflow-x:auto}.legend span{margin-right:1.5em}";

    private HtmlReport() {}

    /**
     * Renders the page.
     *
     * @param d the report's data
     * @return the HTML text
     */
    public static String render(ReportData d) {
        Weights w = d.weights();
        Map<String, String> anchors = new LinkedHashMap<>();
        for (int i = 0; i < w.contexts().size(); i++) {
            anchors.put(w.contexts().get(i).context(), "ctx-" + i);
        }
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>Instruction weights</title>\n<style>").append(STYLE).append("</style></head><body>\n")
                .append("<h1 id=\"top\">Instruction weights</h1>\n<nav><a href=\"#forest\">forest plot</a>")
                .append("<a href=\"#paths\">fast and slow paths</a><a href=\"#quality\">quality</a>")
                .append(d.mapping() == null ? "" : "<a href=\"#catalog\">catalog</a>")
                .append("<a href=\"#gates\">gate table</a><a href=\"#effects\">nuisance effects</a>")
                .append("<a href=\"#plugin-off\">plugin off/on</a><a href=\"#interrupts\">interrupts</a>")
                .append(d.coverage() == null ? "" : "<a href=\"#coverage\">band coverage</a>")
                .append(d.predictions().isEmpty() ? "" : "<a href=\"#predictions\">predictions</a>")
                .append("<a href=\"#campaign\">campaign</a><a href=\"#contexts\">contexts</a></nav>\n<ul>");
        d.summary().forEach(l -> sb.append("<li>").append(Svg.esc(l)).append("</li>"));
        sb.append("</ul>\n");
        forest(sb, w, anchors);
        paths(sb, w, anchors);
        quality(sb, d);
        gates(sb, w, anchors);
        effects(sb, w, anchors);
        pluginOff(sb, w);
        interrupts(sb, d);
        coverage(sb, d.coverage());
        predictions(sb, d.predictions());
        campaign(sb, d);
        table(sb, w, anchors);
        for (ContextWeight c : w.contexts()) {
            diagnostics(sb, c, d.diagnostics().get(c.context()), w.campaign().interrupts().ratePerMs(), anchors.get(c.context()));
        }
        return sb.append("</body></html>\n").toString();
    }

    private static Svg.Mark mark(ContextWeight c, Map<String, String> anchors) {
        boolean zero = c.weightNs() != null && c.weightNs() == 0;
        return new Svg.Mark(c.context(), "#" + anchors.get(c.context()), c.estimateNs(), c.ciLowNs(), c.ciHighNs(),
                c.highQuality(), zero);
    }

    private static List<Svg.Group> groups(List<ContextWeight> cs, Map<String, String> anchors,
            java.util.function.Function<ContextWeight, Svg.Mark> toMark) {
        List<Svg.Group> out = new ArrayList<>();
        ContextGroups.byGroup(cs, ContextWeight::context, Comparator.comparingDouble(HtmlReport::sortKey)
                .thenComparing(ContextWeight::context)).forEach((g, l) -> out.add(new Svg.Group(g, l.stream().map(toMark).toList())));
        return out;
    }

    private static double sortKey(ContextWeight c) {
        return Double.isFinite(c.estimateNs()) ? c.estimateNs() : Double.MAX_VALUE;
    }

    private static final String LEGEND = "<p class=\"legend\"><span><svg width=\"10\" height=\"10\"><circle cx=\"5\" cy=\"5\" r=\"3\" fill=\""
            + Svg.HIGH + "\"/></svg> high-confidence</span><span><svg width=\"10\" height=\"10\"><circle cx=\"5\" cy=\"5\" r=\"3\" fill=\"#fff\" stroke=\""
            + Svg.LOW + "\"/></svg> low-confidence</span><span><svg width=\"10\" height=\"10\"><path d=\"M5 1 l4 4 l-4 4 l-4 -4 z\" fill=\""
            + Svg.HIGH + "\"/></svg> published as zero</span><span><svg width=\"10\" height=\"10\"><path d=\"M2 5 l6 -4 l0 8 z\" fill=\""
            + Svg.ALERT + "\"/></svg> estimate at or below zero (log axis)</span></p>\n";

    private static void forest(StringBuilder sb, Weights w, Map<String, String> anchors) {
        sb.append("<h2 id=\"forest\">Estimates and simultaneous 95% intervals</h2>\n")
                .append("<p>Grouped by extension and execution pattern, cheapest first within a group; a name leads to ")
                .append("the context's diagnostics.</p>\n").append(LEGEND).append("<div class=\"fig\">")
                .append(Svg.forest("forest-plot", groups(w.contexts(), anchors, c -> mark(c, anchors)), true,
                        "ns per instruction", 260))
                .append("</div>\n");
    }

    private static void paths(StringBuilder sb, Weights w, Map<String, String> anchors) {
        List<Svg.Mark> fast = new ArrayList<>();
        List<Svg.Mark> slow = new ArrayList<>();
        for (ContextWeight c : w.contexts().stream().sorted(Comparator.comparingDouble(HtmlReport::sortKey)
                .thenComparing(ContextWeight::context)).toList()) {
            if (!Double.isFinite(c.estimateNs())) {
                continue;
            }
            if (c.estimateNs() >= SLOW_NS) {
                slow.add(mark(c, anchors));
            } else if (FAST_PATH.contains(ContextGroups.mnemonic(c.context())) && !"baseline".equals(ContextGroups.pattern(c.context()))) {
                fast.add(mark(c, anchors));
            }
        }
        sb.append("<h2 id=\"paths\">Fast and slow paths</h2>\n<h3>Representative fast-path costs (linear scale)</h3>\n")
                .append("<p>The contexts of seed 003's representative instructions (").append(String.join(", ",
                        new java.util.TreeSet<>(FAST_PATH))).append(") below ").append(Axis.label(SLOW_NS))
                .append(" ns; bar: estimate, whisker: simultaneous band.</p>\n");
        sb.append(fast.isEmpty() ? "<p>No such context in this campaign.</p>\n"
                : "<div class=\"fig\">" + Svg.valueBars("fast-path", fast, false, "ns per instruction", "ns", 0) + "</div>\n");
        sb.append("<h3>Slow-path costs (log scale)</h3>\n<p>Every context at or above ").append(Axis.label(SLOW_NS))
                .append(" ns: indirect jumps through QEMU's translation-block lookup, helper calls. These are costs of ")
                .append("the emulator's mechanism, not hardware latencies.</p>\n");
        sb.append(slow.isEmpty() ? "<p>No such context in this campaign.</p>\n"
                : "<div class=\"fig\">" + Svg.valueBars("slow-path", slow, true, "ns per instruction", "ns", 0) + "</div>\n");
    }

    private static void quality(StringBuilder sb, ReportData d) {
        Weights w = d.weights();
        Map<String, Long> q = new LinkedHashMap<>();
        q.put("high-confidence", w.quality().high());
        q.put("low-confidence", w.quality().low());
        sb.append("<h2 id=\"quality\">Model quality</h2>\n").append(Svg.bars("quality-bars", q, "#4d9221"));
        Map<String, Integer> fails = sortedByCount(w.quality().gateFailures());
        sb.append("<h3>Quality gate failures</h3>\n<p>A context can fail several gates; counts do not add up.</p>\n")
                .append(fails.isEmpty() ? "<p>No failures.</p>\n" : Svg.bars("gate-bars", fails, "#d6604d") + "\n");
        Mapping m = d.mapping();
        if (m == null) {
            return;
        }
        Map<String, Integer> ext = new TreeMap<>();
        m.classes().forEach(c -> ext.merge(c.entry().extension() == null ? "unknown" : c.entry().extension(), 1, Integer::sum));
        sb.append("<h2 id=\"catalog\">Catalog</h2>\n<h3>Publication status of the catalog's classes</h3>\n<p>")
                .append(m.classes().size()).append(" classes, ").append(m.orphans().size())
                .append(" orphan contexts (matching no class). Statuses as docs/formats.md defines them for mapping.json.</p>\n")
                .append(Svg.bars("catalog-status", sortedByCount(m.statusCounts()), "#4393c3"))
                .append("\n<h3>Catalog classes by extension</h3>\n").append(Svg.bars("catalog-extensions", sortedByCount(ext), "#8073ac"))
                .append('\n');
    }

    private static <V extends Comparable<V>> Map<String, V> sortedByCount(Map<String, V> m) {
        Map<String, V> out = new LinkedHashMap<>();
        m.entrySet().stream().sorted(Map.Entry.<String, V>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    private static void gates(StringBuilder sb, Weights w, Map<String, String> anchors) {
        sb.append("<h2 id=\"gates\">Gate table</h2>\n<p>Every failed gate of every context with the numbers that made it ")
                .append("fail (docs/weigh-model.md, section 6, defines the gates).</p>\n");
        List<String[]> rows = new ArrayList<>();
        for (ContextWeight c : w.contexts()) {
            for (Reason r : c.reasons()) {
                StringBuilder nums = new StringBuilder();
                r.numbers().forEach((k, v) -> nums.append(nums.length() == 0 ? "" : ", ").append(k).append(" = ")
                        .append(v instanceof Double x ? Axis.label(x) : String.valueOf(v)));
                rows.add(new String[] {r.gate(), c.context(), nums.toString()});
            }
        }
        if (rows.isEmpty()) {
            sb.append("<p>No context failed a gate.</p>\n");
            return;
        }
        rows.sort(Comparator.<String[], String>comparing(r -> r[0]).thenComparing(r -> r[1]));
        sb.append("<table id=\"gate-table\"><tr><th>gate</th><th>context</th><th>numbers</th></tr>\n");
        for (String[] r : rows) {
            sb.append("<tr><td>").append(Svg.esc(r[0])).append("</td><td><a href=\"#").append(anchors.get(r[1])).append("\">")
                    .append(Svg.esc(r[1])).append("</a></td><td>").append(Svg.esc(r[2])).append("</td></tr>\n");
        }
        sb.append("</table>\n");
    }

    private static void effects(StringBuilder sb, Weights w, Map<String, String> anchors) {
        sb.append("<h2 id=\"effects\">Nuisance effects</h2>\n<p>Each context's fitted coefficient with its pointwise 95% ")
                .append("interval (&#177;1.96 SE from the run pseudo-values): order (AB minus BA), drift (last round minus ")
                .append("first), in ns per instruction, and the per-window fixed cost alpha of d = beta + alpha/N, in ns per ")
                .append("window. An effect far from zero is what the model removes from the estimate.</p>\n");
        String[][] effects = {{"order", "order effect, ns per instruction"}, {"drift", "drift effect, ns per instruction"},
            {"window", "per-window fixed cost alpha, ns per window"}};
        for (String[] e : effects) {
            List<Svg.Group> g = groups(w.contexts(), anchors, c -> {
                ContextWeight.Effect x = c.effects().get(e[0]);
                boolean ok = x != null && x.estimable();
                double v = ok ? x.coefficientNs() : Double.NaN;
                double se = ok ? x.seNs() : Double.NaN;
                return new Svg.Mark(c.context(), "#" + anchors.get(c.context()), v, v - Z95 * se, v + Z95 * se, c.highQuality(),
                        false);
            });
            sb.append("<h3>").append(Svg.esc(e[0])).append("</h3>\n<div class=\"fig\">")
                    .append(Svg.forest("effect-" + e[0], g, false, e[1], 260)).append("</div>\n");
        }
    }

    private static void pluginOff(StringBuilder sb, Weights w) {
        List<ContextWeight> both = w.contexts().stream().filter(c -> c.pluginOff() != null && c.pluginOff().unavailable() == null
                && Double.isFinite(c.pluginOff().estimateNs()) && Double.isFinite(c.contrastNs())).toList();
        sb.append("<h2 id=\"plugin-off\">Plugin off against plugin on</h2>\n<p>Each context's contrast against its own ")
                .append("baseline, measured with the timing plugin (x, host thread CPU time) and without it (y, guest clock); ")
                .append("log-log with the line y = x. Points at or below zero lie on the axes' lower edges in grey. ")
                .append(both.size()).append(" of ").append(w.contexts().size()).append(" contexts have both.</p>\n");
        if (both.isEmpty()) {
            sb.append("<p>No context has a plugin-off estimate.</p>\n");
            return;
        }
        double[] x = both.stream().mapToDouble(ContextWeight::contrastNs).toArray();
        double[] y = both.stream().mapToDouble(c -> c.pluginOff().estimateNs()).toArray();
        double[] all = java.util.stream.DoubleStream.concat(java.util.Arrays.stream(x), java.util.Arrays.stream(y)).toArray();
        Axis xa = Axis.covering(all, true, false, 70, 420);
        Axis ya = Axis.covering(all, true, false, 440, -420);
        String[] titles = both.stream().map(c -> c.context() + ": on " + Axis.label(c.contrastNs()) + ", off "
                + Axis.label(c.pluginOff().estimateNs()) + " ns").toArray(String[]::new);
        boolean[] flag = new boolean[both.size()];
        for (int i = 0; i < flag.length; i++) {
            flag[i] = both.get(i).reasons().stream().anyMatch(r -> r.gate().startsWith("plugin-off"));
        }
        sb.append("<p>Magenta: the context fails a plugin-off gate.</p>\n<div class=\"fig\">")
                .append(Svg.scatter("plugin-off-scatter", x, y, flag, xa, ya, "plugin on, ns per instruction",
                        "plugin off, ns per instruction", true, titles)).append("</div>\n");
    }

    /** Detected events per ms of exposure by position in the run, over the given contexts' kept pairs. */
    static double[] eventRateByPosition(Iterable<Diagnostics> ds) {
        double[] exposure = new double[POSITION_BINS];
        double[] events = new double[POSITION_BINS];
        for (Diagnostics d : ds) {
            for (int i = 0; i < d.pairs(); i++) {
                int bin = Math.min(POSITION_BINS - 1, (int) Math.floor(d.position()[i] * POSITION_BINS));
                exposure[bin] += d.exposureNs()[i];
                events[bin] += d.event()[i] ? 1 : 0;
            }
        }
        double[] rate = new double[POSITION_BINS];
        for (int b = 0; b < POSITION_BINS; b++) {
            rate[b] = exposure[b] > 0 ? events[b] / (exposure[b] / 1e6) : Double.NaN;
        }
        return rate;
    }

    private static String[] binLabels() {
        String[] out = new String[POSITION_BINS];
        for (int b = 0; b < POSITION_BINS; b++) {
            out[b] = (100 * b / POSITION_BINS) + "%";
        }
        return out;
    }

    private static void interrupts(StringBuilder sb, ReportData d) {
        Weights.InterruptBackground bg = d.weights().campaign().interrupts();
        sb.append("<h2 id=\"interrupts\">Interrupt events</h2>\n<p>Background: ").append(Axis.label(bg.ratePerMs()))
                .append(" events per ms of CPU time (").append(bg.events()).append(" events in ")
                .append(Axis.label(bg.exposureMs())).append(" ms of exposure where every event is detectable; mean ")
                .append(Axis.label(bg.meanEventUs())).append(" us, median ").append(Axis.label(bg.medianEventUs()))
                .append(" us). Contexts above the background: ").append(bg.contextsAboveBackground().isEmpty() ? "none"
                        : Svg.esc(String.join(", ", bg.contextsAboveBackground()))).append(".</p>\n")
                .append("<p>Detected events per ms of exposure by position in the run (tenths of the run, all kept pairs of ")
                .append("all contexts; an event is detected only where it exceeds the pair's threshold, so the bars can lie ")
                .append("below the background, dashed). A start-of-run transient shows as a high first bar.</p>\n")
                .append(Svg.columns("event-rate", binLabels(), eventRateByPosition(d.diagnostics().values()), bg.ratePerMs(),
                        "events per ms"))
                .append('\n');
    }

    /** The target of the band's family-wise coverage (issue 12), as shares. */
    private static final double COVERAGE_LOW = 0.93;
    private static final double COVERAGE_HIGH = 0.97;

    private static void coverage(StringBuilder sb, CoverageTable t) {
        if (t == null) {
            return;
        }
        List<Svg.Mark> marks = new ArrayList<>();
        double lo = COVERAGE_LOW;
        for (CoverageTable.Cell c : t.cells()) {
            double[] ci = wilson(c.covered(), c.campaigns());
            lo = Math.min(lo, ci[0]);
            boolean inside = c.share() >= COVERAGE_LOW && c.share() <= COVERAGE_HIGH;
            marks.add(new Svg.Mark("K = " + c.contexts() + ", run SD " + Axis.label(c.runSdRatio()) + " SE, common "
                    + Axis.label(c.runCorrelation()) + ", I\u00b2 " + Axis.label(c.medianI2()) + " (" + c.campaigns() + ")",
                    null, 100 * c.share(), 100 * ci[0], 100 * ci[1], inside, false));
        }
        sb.append("<h2 id=\"coverage\">Coverage of the simultaneous band</h2>\n<p>Simulated campaigns (")
                .append("<code>bench/weigh-coverage.sh</code>, docs/weigh-model.md section 3): per cell the share of campaigns ")
                .append("whose band contained every context's truth, with its 95% Wilson interval; the target, 93 to 97%, ")
                .append("shaded. Hollow orange: a cell outside the target. Label: contexts K, run-to-run SD in within-run SEs, ")
                .append("the share of it common to all contexts, the median I\u00b2, (campaigns).</p>\n<div class=\"fig\">")
                .append(Svg.intervals("coverage-sim", marks, Math.floor(100 * lo), 100, 100 * COVERAGE_LOW, 100 * COVERAGE_HIGH,
                        "campaigns covered, %"))
                .append("</div>\n");
    }

    /** Wilson's 95% score interval of a binomial share. */
    private static double[] wilson(int k, int n) {
        double p = k / (double) n;
        double z2 = Z95 * Z95;
        double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
        double half = Z95 * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
        return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
    }

    private static void predictions(StringBuilder sb, List<PredictionSummary> ps) {
        if (ps.isEmpty()) {
            return;
        }
        List<Svg.Mark> marks = ps.stream().map(p -> new Svg.Mark(p.label(), null, p.predictedS(), p.lowS(), p.highS(), true,
                false)).toList();
        sb.append("<h2 id=\"predictions\">Predicted run time</h2>\n<p>Outputs of <code>splice weigh predict --json</code> ")
                .append("(docs/weigh-measure.md, \"Predicting run time\"): the predicted CPU time with its interval, and the ")
                .append("share of executed instructions without a price.</p>\n<div class=\"fig\">")
                .append(Svg.valueBars("predictions", marks, false, "predicted CPU time, s", "s", 0))
                .append("</div>\n<table id=\"prediction-table\"><tr><th>program</th><th>predicted s</th><th>low s</th>")
                .append("<th>high s</th><th>unpriced share</th></tr>\n");
        for (PredictionSummary p : ps) {
            sb.append("<tr><td>").append(Svg.esc(p.label())).append("</td><td class=\"n\">").append(Axis.label(p.predictedS()))
                    .append("</td><td class=\"n\">").append(Axis.label(p.lowS())).append("</td><td class=\"n\">")
                    .append(Axis.label(p.highS())).append("</td><td class=\"n\">").append(Axis.label(p.unpricedShare()))
                    .append("</td></tr>\n");
        }
        sb.append("</table>\n");
    }

    private static void campaign(StringBuilder sb, ReportData d) {
        Weights w = d.weights();
        sb.append("<h2 id=\"campaign\">Campaign</h2>\n<h3>Pair filter funnel</h3>\n")
                .append(Svg.bars("funnel-bars", w.campaign().funnel(), "#4393c3"))
                .append("\n<h3>Batch and order balance (kept pairs)</h3>\n").append(Svg.bars("balance-bars", d.balance(), "#8073ac"))
                .append("\n<h3>Bootstrap convergence</h3>\n<p>Critical value of the simultaneous band from the first b replicates.</p>\n")
                .append(Svg.line("convergence", w.bootstrap().convergence().stream()
                        .map(c -> new double[] {c.replicates(), c.criticalValue()}).toList(), "replicates", "critical value c"))
                .append('\n');
        if (!w.campaign().badRows().isEmpty()) {
            sb.append("<h3>Skipped bad rows (").append(w.campaign().badRows().size()).append(")</h3>\n<ul>");
            w.campaign().badRows().stream().limit(50).forEach(b -> sb.append("<li>").append(Svg.esc(b)).append("</li>"));
            sb.append("</ul>\n");
        }
    }

    private static String n(double v) {
        return Axis.label(v);
    }

    private static void table(StringBuilder sb, Weights w, Map<String, String> anchors) {
        sb.append("<h2 id=\"contexts\">Contexts</h2>\n<p>Estimates in ns per target instruction; the interval is the ")
                .append("simultaneous 95% band. A name opens the context's diagnostics.</p>\n<table id=\"context-table\"><tr>")
                .append("<th>context</th><th>group</th><th>estimate</th><th>interval</th><th>weight</th><th>quality</th>")
                .append("<th>ESS</th><th>kept</th><th>removed</th><th>events</th><th>failed gates</th></tr>\n");
        for (ContextWeight c : w.contexts()) {
            sb.append("<tr><td><a href=\"#").append(anchors.get(c.context())).append("\">").append(Svg.esc(c.context()))
                    .append("</a></td><td>").append(Svg.esc(ContextGroups.group(c.context()))).append("</td><td class=\"n\">")
                    .append(n(c.estimateNs())).append("</td><td>[").append(n(c.ciLowNs())).append(", ").append(n(c.ciHighNs()))
                    .append("]</td><td class=\"n\">")
                    .append(c.weightNs() == null ? Svg.esc(c.publication() == null ? "-" : c.publication().label()) : n(c.weightNs()))
                    .append("</td><td>").append(c.highQuality() ? "high" : "low").append("</td><td class=\"n\">").append(n(c.ess()))
                    .append("</td><td class=\"n\">").append(c.pairsKept()).append("</td><td class=\"n\">").append(c.pairsRemoved())
                    .append("</td><td class=\"n\">").append(c.interrupts() == null ? "-" : c.interrupts().events() + " / "
                            + n(c.interrupts().expected()))
                    .append("</td><td>").append(Svg.esc(String.join(", ", c.reasons().stream().map(Reason::gate).toList())))
                    .append("</td></tr>\n");
        }
        sb.append("</table>\n");
    }

    private static void diagnostics(StringBuilder sb, ContextWeight c, Diagnostics d, double background, String anchor) {
        sb.append("<section class=\"diag\" id=\"").append(anchor).append("\">\n<h2>").append(Svg.esc(c.context()))
                .append("</h2>\n<p><a href=\"#contexts\">back to the table</a></p>\n<p>estimate ").append(n(c.estimateNs()))
                .append(" ns [").append(n(c.ciLowNs())).append(", ").append(n(c.ciHighNs())).append("], contrast ")
                .append(n(c.contrastNs())).append(" ns against ").append(Svg.esc(c.baseline() == null ? "-" : c.baseline()))
                .append(", SE ").append(n(c.seNs())).append(" ns; ").append(c.highQuality() ? "high-confidence"
                        : "low-confidence: " + Svg.esc(String.join(", ", c.reasons().stream().map(Reason::gate).toList())))
                .append("</p>\n");
        if (d == null) {
            sb.append("<p>No fit: no diagnostics.</p>\n</section>\n");
            return;
        }
        String[] batchLabels = java.util.Arrays.stream(d.batches()).mapToObj(b -> "N = " + b).toArray(String[]::new);
        sb.append("<h3>d per batch size</h3>\n<p>Kept pairs' probe-minus-baseline time per target instruction; with a fixed ")
                .append("cost per window, d falls as alpha/N with the batch size N.</p>\n")
                .append(Svg.boxes("batches-" + anchor, batchLabels, d.dByBatch(), "d, ns per instruction")).append('\n');
        List<Svg.Mark> runs = new ArrayList<>();
        for (Diagnostics.RunEstimate r : d.runs()) {
            runs.add(new Svg.Mark(r.run() + " (" + r.pairs() + " pairs" + (r.failure() == null ? "" : "; " + r.failure()) + ")",
                    null, r.thetaNs(), r.thetaNs() - Z95 * r.seNs(), r.thetaNs() + Z95 * r.seNs(), r.failure() == null, false));
        }
        runs.add(new Svg.Mark("all runs", null, d.contrastNs(), c.contrastNs() - (c.estimateNs() - c.ciLowNs()),
                c.contrastNs() + (c.ciHighNs() - c.estimateNs()), c.highQuality(), false));
        sb.append("<h3>Per-run estimates</h3>\n<p>Each run's own fit of the contrast with its pointwise 95% interval; last ")
                .append("row: the pooled contrast with the simultaneous band's half-widths.")
                .append(c.heterogeneity() == null ? "" : " I&#178; = " + n(c.heterogeneity().i2()) + ", tau&#178; = "
                        + n(c.heterogeneity().tau2()) + " ns&#178;.")
                .append("</p>\n").append(Svg.forest("runs-" + anchor, List.of(new Svg.Group("runs", runs)), false,
                        "contrast, ns per instruction", 300)).append('\n');
        double[] all = d.residualNs().clone();
        java.util.Arrays.sort(all);
        double[] range = {Svg.quantile(all, 0.01), Svg.quantile(all, 0.99)};
        Axis xa = new Axis(0, 1, false, 70, 480);
        Axis ya = Axis.covering(range, false, true, 230, -210);
        sb.append("<h3>Residuals against position in the run</h3>\n<p>Residual of each kept pair from the final fit; ")
                .append("magenta: detected interrupt events; grey on the edges: beyond the 1st to 99th percentile.</p>\n")
                .append(Svg.scatter("residuals-" + anchor, d.position(), d.residualNs(), d.event(), xa, ya,
                        "position in the run (0 = first round)", "residual, ns per instruction", false, null))
                .append('\n');
        ContextWeight.Interrupts ev = c.interrupts();
        sb.append("<h3>Event rate</h3>\n<p>");
        if (ev != null) {
            sb.append(ev.events()).append(" events detected, ").append(n(ev.expected())).append(" expected from the background (")
                    .append(n(background)).append(" per ms); P(at least as many) = ").append(n(ev.pExcess()))
                    .append("; share of this context's interrupts the fit detects: ").append(n(ev.detectableShare()))
                    .append(". Expected interrupt overhead: ").append(n(c.interruptOverheadNs())).append(" ns per instruction. ");
        }
        sb.append("Detected events per ms of exposure by position in the run; dashed: the background.</p>\n")
                .append(Svg.columns("events-" + anchor, binLabels(), eventRateByPosition(List.of(d)), background, "events per ms"))
                .append("\n</section>\n");
    }
}
