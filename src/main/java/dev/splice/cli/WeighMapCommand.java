package dev.splice.cli;

import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.Mapping;
import dev.splice.weigh.campaign.Weights;
import dev.splice.weigh.map.CatalogMapper;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice weigh map WEIGHTS CATALOG}. */
@Command(
        name = "map",
        mixinStandardHelpOptions = true,
        description = {
            "Map context weights (weights.json) onto the instruction classes of a catalog (catalog JSON or 'key,count' CSV): strict, exploratory, context-dependent, restricted and unmeasured classes, and orphan contexts. Writes mapping.json and mapping.csv."
        })
public final class WeighMapCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "WEIGHTS", description = "weights.json written by 'splice weigh model'.")
    Path weights;

    @Parameters(index = "1", paramLabel = "CATALOG", description = "Catalog JSON or key,count CSV.")
    Path catalog;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT_DIR", description = "Output directory (default: the directory of WEIGHTS).")
    Path out;

    @Option(names = "--allow-empty", description = "An empty catalog is not an error (it is still reported).")
    boolean allowEmpty;

    @Override
    public Integer call() {
        Catalog read = Catalog.read(catalog);
        Mapping m = CatalogMapper.map(Weights.read(weights).contexts(), read);
        Path dir = out != null ? out : weights.toAbsolutePath().getParent();
        m.writeTo(dir);
        System.out.println(m.classes().size() + " classes " + m.statusCounts() + ", " + m.orphans().size()
                + " orphan contexts");
        System.out.println("wrote " + dir.resolve("mapping.json"));
        if (read.entries().isEmpty()) {
            System.err.println("splice: warning: " + catalog + " holds no instruction class"
                    + (allowEmpty ? "" : "; --allow-empty accepts that"));
            return allowEmpty ? Main.OK : Main.BAD_INPUT;
        }
        return Main.OK;
    }
}
