package dev.splice.weigh.report;

import java.util.List;

/**
 * What the model knows about one context's pairs, for the report's diagnostic panels: read-only
 * copies of the model's data and fit, nothing re-computed.
 *
 * @param batches the batch sizes (target instructions per window), ascending
 * @param dByBatch {@code [batch level]} -> the kept pairs' differences d (ns per target instruction)
 * @param runs each campaign run's own fit of the contrast
 * @param contrastNs the context's pooled contrast against its baseline (ns per instruction)
 * @param position per kept pair, its position in its run (0 = first round, 1 = last)
 * @param residualNs per kept pair, its residual from the final fit (ns per instruction)
 * @param batch per kept pair, its batch size
 * @param rejected per kept pair, whether the bisquare gave it no weight
 * @param event per kept pair, whether it is a detected interrupt event
 * @param exposureNs per kept pair, the thread CPU time of both its windows (ns)
 */
public record Diagnostics(
        int[] batches,
        double[][] dByBatch,
        List<RunEstimate> runs,
        double contrastNs,
        double[] position,
        double[] residualNs,
        int[] batch,
        boolean[] rejected,
        boolean[] event,
        double[] exposureNs) {

    /**
     * One run's own fit.
     *
     * @param run the run's name
     * @param pairs its kept pairs
     * @param thetaNs its contrast (NaN when it has no fit)
     * @param seNs the fit's standard error (NaN when it has none)
     * @param failure why it has no fit, or null
     */
    public record RunEstimate(String run, int pairs, double thetaNs, double seNs, String failure) {}

    /**
     * Copies the run list.
     *
     * @param batches see {@link #batches()}
     * @param dByBatch see {@link #dByBatch()}
     * @param runs see {@link #runs()}
     * @param contrastNs see {@link #contrastNs()}
     * @param position see {@link #position()}
     * @param residualNs see {@link #residualNs()}
     * @param batch see {@link #batch()}
     * @param rejected see {@link #rejected()}
     * @param event see {@link #event()}
     * @param exposureNs see {@link #exposureNs()}
     */
    public Diagnostics {
        runs = List.copyOf(runs);
    }

    /** @return the number of kept pairs */
    public int pairs() {
        return position.length;
    }
}
