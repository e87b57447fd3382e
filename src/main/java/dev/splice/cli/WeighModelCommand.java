package dev.splice.cli;

import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.CoverageTable;
import dev.splice.weigh.campaign.PredictionSummary;
import dev.splice.weigh.campaign.Weights;
import dev.splice.weigh.model.ModelOptions;
import dev.splice.weigh.model.ModelResult;
import dev.splice.weigh.model.Report;
import dev.splice.weigh.model.WeighModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice weigh model CAMPAIGN_DIR -o OUT_DIR}. */
@Command(
        name = "model",
        mixinStandardHelpOptions = true,
        description = {
            "Fit the robust model to a campaign's pairs.jsonl and pairs-off.jsonl and publish weights:",
            "per-context robust fit (Huber start, bisquare) of d = beta + alpha/N with run, order and drift terms, run pseudo-values with a wild cluster bootstrap for simultaneous 95%% intervals, interrupt background, quality gates. Writes weights.json, weights.csv, report.md and report.html (forest plot, fast and slow paths, gate table, nuisance effects, plugin-off scatter, interrupts, per-context diagnostics; with --catalog the catalog charts, with --coverage the band's simulated coverage, with --prediction the predicted run times) to OUT_DIR. The same seed gives byte-identical output."
        })
public final class WeighModelCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CAMPAIGN_DIR", description = "Directory holding pairs.jsonl (and pairs-off.jsonl, manifest.json).")
    Path campaign;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT_DIR", description = "Output directory (created if needed).")
    Path out;

    @Option(names = "--bootstrap", paramLabel = "N", defaultValue = "999", description = "Bootstrap replicates (default: ${DEFAULT-VALUE}, from 19 to 99999).")
    int replicates;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "20260809", description = "Bootstrap seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--threads", paramLabel = "T", description = "Contexts fitted in parallel (default: the number of processors; results do not depend on it).")
    Integer threads;

    @Option(names = "--skip-bad-rows", description = "Skip malformed rows, count and report them, instead of stopping at the first.")
    boolean skipBadRows;

    @Option(names = "--catalog", paramLabel = "CATALOG", description = "A program's catalog (JSON or key,count CSV, as for 'splice weigh map'): report.html gains the catalog's status and extension charts of the weights mapped onto it.")
    Path catalog;

    @Option(names = "--coverage", paramLabel = "COVERAGE", description = "A coverage table (coverage.json, written by bench/weigh-coverage.sh): report.html gains the band's simulated family-wise coverage, cell by cell, against the 93 to 97%% target.")
    Path coverage;

    @Option(names = "--prediction", paramLabel = "PREDICTION", description = "A 'splice weigh predict --json' output (repeatable): report.html gains each one's predicted CPU time, interval and unpriced share, labelled by the file name.")
    List<Path> predictions = new ArrayList<>();

    @Override
    public Integer call() {
        CoverageTable table = coverage == null ? null : CoverageTable.read(coverage);
        List<PredictionSummary> predicted = predictions.stream().map(PredictionSummary::read).toList();
        Campaign c = Campaign.read(campaign, skipBadRows);
        if (!c.badRows().isEmpty()) {
            System.err.println("splice: skipped " + c.badRows().size() + " bad rows (first: " + c.badRows().get(0) + ")");
        }
        ModelOptions o = ModelOptions.defaults().withReplicates(replicates).withSeed(seed);
        if (threads != null) {
            o = o.withThreads(Math.max(1, threads));
        }
        if (Progress.shown()) {
            ProgressBar bar = new ProgressBar(System.err, "bootstrap", replicates);
            o = o.withProgress(bar::update);
        }
        ModelResult r = WeighModel.run(c, o);
        r.writeTo(out);
        if (catalog != null || table != null || !predicted.isEmpty()) {
            Report.writeHtml(r, catalog == null ? null : Catalog.read(catalog), table, predicted, out);
        }
        Weights w = r.weights();
        System.out.printf("%d contexts: %d high-confidence, %d low; simultaneous critical value %.4f from %d/%d replicates%n",
                w.contexts().size(), w.quality().high(), w.quality().low(), w.bootstrap().criticalValue(),
                w.bootstrap().validReplicates(), w.bootstrap().replicates());
        System.out.println("wrote " + out.resolve("weights.json"));
        return Main.OK;
    }
}
