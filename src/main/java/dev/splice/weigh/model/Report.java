package dev.splice.weigh.model;

import dev.splice.base.AtomicFiles;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.CoverageTable;
import dev.splice.weigh.campaign.Mapping;
import dev.splice.weigh.campaign.PredictionSummary;
import dev.splice.weigh.campaign.Reason;
import dev.splice.weigh.map.CatalogMapper;
import dev.splice.weigh.report.Diagnostics;
import dev.splice.weigh.report.HtmlReport;
import dev.splice.weigh.report.ReportData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * report.md, and the data of report.html ({@link HtmlReport} draws it: one self-contained file with
 * inline SVG pictures).
 */
public final class Report {
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

    /**
     * Where the weights were measured, for a summary line.
     *
     * @param mode user or system, null if unknown
     * @param qemuCpu the CPU model, {@link dev.splice.weigh.campaign.Campaign#DEFAULT_CPU}, or null if unknown
     * @return e.g. {@code measured in user mode on QEMU's default CPU model}
     */
    public static String cpuLine(String mode, String qemuCpu) {
        String where = mode == null ? "measured (mode not recorded)" : "measured in " + mode + " mode";
        if (qemuCpu == null) {
            return where + ", CPU model not recorded (weights.json before qemu_cpu, or a campaign without manifest.json)";
        }
        return where + (dev.splice.weigh.campaign.Campaign.DEFAULT_CPU.equals(qemuCpu)
                ? " on QEMU's default CPU model (no -cpu)" : " on CPU model -cpu " + qemuCpu);
    }

    private static List<String> summary(ModelResult r) {
        SimultaneousBand b = r.band();
        double[] ratios = java.util.Arrays.stream(b.widthRatio()).filter(Double::isFinite).sorted().toArray();
        List<String> s = new ArrayList<>();
        s.add(r.runs().size() + " runs, " + r.contexts().size() + " contexts, " + r.funnel().get("pairs_read")
                + " pairs read, " + r.funnel().get("pairs_kept") + " kept");
        s.add(Report.cpuLine(r.mode(), r.qemuCpu()));
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

    /**
     * The data of the HTML report: the published weights, the summary and the model's per-context
     * diagnostics (copies of its data and fits).
     *
     * @param r the model's result
     * @return the report's data, without a catalog mapping
     */
    public static ReportData data(ModelResult r) {
        Map<String, Diagnostics> diagnostics = new LinkedHashMap<>();
        for (ContextResult c : r.contexts()) {
            if (c.analysis().fit().ok()) {
                diagnostics.put(c.context(), diagnostics(c.analysis()));
            }
        }
        Map<String, Long> balance = batches(r);
        return new ReportData(r.weights(), summary(r), balance, diagnostics, null, null, List.of());
    }

    private static Diagnostics diagnostics(ContextAnalysis a) {
        ContextData c = a.data();
        HuberFit f = a.fit();
        int n = c.size();
        double[][] byBatch = new double[c.batches().length][];
        for (int l = 0; l < byBatch.length; l++) {
            final int level = l;
            byBatch[l] = java.util.stream.IntStream.range(0, n).filter(i -> c.batchLevel()[i] == level).mapToDouble(i -> c.y()[i])
                    .toArray();
        }
        double[] position = new double[n];
        int[] batch = new int[n];
        boolean[] rejected = new boolean[n];
        for (int i = 0; i < n; i++) {
            position[i] = c.x()[1][i] + 0.5;
            batch[i] = c.batch(i);
            rejected[i] = f.huberWeights()[i] == 0;
        }
        List<Diagnostics.RunEstimate> runs = a.runFits().stream().map(rf -> new Diagnostics.RunEstimate(rf.run(), rf.pairs(),
                rf.theta(), Math.sqrt(rf.variance()), rf.failure())).toList();
        return new Diagnostics(c.batches().clone(), byBatch, runs, f.theta(), position, f.residuals().clone(), batch, rejected,
                a.events().event().clone(), c.exposure().clone());
    }

    /**
     * Rewrites {@code report.html} with the optional inputs' panels: the weights mapped onto a
     * program's catalog as {@code splice weigh map} maps them, the band's simulated coverage, and
     * predictions of programs' run time.
     *
     * @param r the model's result
     * @param catalog a program's catalog, or null
     * @param coverage the coverage simulation's table, or null
     * @param predictions {@code weigh predict --json} outputs, possibly none
     * @param dir the output directory
     */
    public static void writeHtml(ModelResult r, Catalog catalog, CoverageTable coverage, List<PredictionSummary> predictions,
            Path dir) {
        ReportData d = data(r);
        Mapping m = catalog == null ? null : CatalogMapper.map(d.weights().contexts(), catalog);
        AtomicFiles.write(dir.resolve("report.html"), HtmlReport.render(d.with(m, coverage, predictions)));
    }

    static String html(ModelResult r) {
        return HtmlReport.render(data(r));
    }
}
