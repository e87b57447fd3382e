package dev.splice.weigh.model;

import dev.splice.base.AtomicFiles;
import dev.splice.weigh.campaign.BadRow;
import dev.splice.weigh.campaign.Weights;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything the model found about a campaign ({@link WeighModel#run}): what it publishes
 * ({@link #weights()}) and the files it writes ({@link #writeTo(Path)}). The fits themselves stay
 * inside the model.
 */
public final class ModelResult {
    private final List<String> runs;
    private final List<ContextResult> contexts;
    private final SimultaneousBand band;
    private final ModelOptions options;
    private final Map<String, Long> funnel;
    private final Map<Integer, Long> batchBalance;
    private final Map<String, Long> orderBalance;
    private final List<BadRow> badRows;
    private final Map<String, Integer> gateFailures;
    private final Interrupts.Background interrupts;
    private final double zeroMarginNs;
    private final String zeroReference;
    private final String mode;
    private final String qemuCpu;

    /**
     * @param funnel pair counts in filter order (insertion-ordered)
     * @param batchBalance kept pairs per batch size
     * @param orderBalance kept pairs per order (AB, BA)
     * @param interrupts the campaign's background of interrupt events
     * @param zeroMarginNs the practical-zero margin (ns): {@link WeighModel#ZERO_MARGIN_REL} of the cheapest
     *     context whose band lies above zero (0 when there is none)
     * @param zeroReference that cheapest context, or null
     * @param mode where the campaign's probes ran ({@code user} or {@code system})
     * @param qemuCpu the campaign's QEMU CPU model ({@link dev.splice.weigh.campaign.Campaign#qemuCpu()}), null if unknown
     */
    ModelResult(List<String> runs, List<ContextResult> contexts, SimultaneousBand band, ModelOptions options,
            Map<String, Long> funnel, Map<Integer, Long> batchBalance, Map<String, Long> orderBalance,
            List<BadRow> badRows, Map<String, Integer> gateFailures, Interrupts.Background interrupts,
            double zeroMarginNs, String zeroReference, String mode, String qemuCpu) {
        this.runs = runs;
        this.contexts = contexts;
        this.band = band;
        this.options = options;
        this.funnel = funnel;
        this.batchBalance = batchBalance;
        this.orderBalance = orderBalance;
        this.badRows = badRows;
        this.gateFailures = gateFailures;
        this.interrupts = interrupts;
        this.zeroMarginNs = zeroMarginNs;
        this.zeroReference = zeroReference;
        this.mode = mode;
        this.qemuCpu = qemuCpu;
    }

    String mode() {
        return mode;
    }

    String qemuCpu() {
        return qemuCpu;
    }

    List<String> runs() {
        return runs;
    }

    List<ContextResult> contexts() {
        return contexts;
    }

    SimultaneousBand band() {
        return band;
    }

    ModelOptions options() {
        return options;
    }

    Map<String, Long> funnel() {
        return funnel;
    }

    Map<Integer, Long> batchBalance() {
        return batchBalance;
    }

    Map<String, Long> orderBalance() {
        return orderBalance;
    }

    List<BadRow> badRows() {
        return badRows;
    }

    Map<String, Integer> gateFailures() {
        return gateFailures;
    }

    Interrupts.Background interrupts() {
        return interrupts;
    }

    double zeroMarginNs() {
        return zeroMarginNs;
    }

    String zeroReference() {
        return zeroReference;
    }

    long highQuality() {
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
