package dev.splice.cli;

import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.Prediction;
import dev.splice.weigh.campaign.Weights;
import dev.splice.weigh.map.Predictor;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice weigh predict WEIGHTS CATALOG [--minus CATALOG] [--json]}. */
@Command(
        name = "predict",
        mixinStandardHelpOptions = true,
        description = {
            "Predict the CPU time of a catalogued run (a catalog written by 'splice weigh catalog') from instruction weights and per-block costs (weights.json), with an interval; every executed instruction is priced or reported as unpriced with its share."
        })
public final class WeighPredictCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "WEIGHTS", description = "weights.json written by 'splice weigh model'.")
    Path weights;

    @Parameters(index = "1", paramLabel = "CATALOG", description = "Catalog JSON of the run, with block counts.")
    Path catalog;

    @Option(names = "--minus", paramLabel = "CATALOG", description = "Predict the difference from this catalog of a shorter run of the same program (start-up cancels).")
    Path minus;

    @Option(names = "--json", description = "Print the prediction as JSON (predicted_s, low_s, high_s, unpriced_share, classes, blocks).")
    boolean json;

    @Override
    public Integer call() {
        Prediction p = Predictor.predict(Weights.read(weights).contexts(), Catalog.read(catalog),
                minus == null ? null : Catalog.read(minus));
        System.out.print(json ? p.toJson() : p.toText());
        return Main.OK;
    }
}
