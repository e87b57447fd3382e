package dev.splice.weigh.probe;

/**
 * A probe/baseline pair of measured windows.
 *
 * @param index pair number in execution order
 * @param context the probed context
 * @param baseline its baseline context
 * @param calls kernel calls per window
 * @param batch target executions per window (calls x slots)
 * @param round probe round
 * @param order "AB" (probe window first) or "BA"
 * @param probeWindow the probe's measured window index
 * @param baselineWindow the baseline's measured window index
 */
public record ProbePair(int index, String context, String baseline, int calls, int batch, int round, String order,
        int probeWindow, int baselineWindow) {
    /**
     * Target slots per kernel call, the same in the probe and the baseline window.
     *
     * @return {@code batch / calls}
     */
    public int slots() {
        return batch / calls;
    }

    /**
     * The probe window's kernel.
     *
     * @return {@link ProbeProgram#kernelName}{@code (context, slots)}
     */
    public String probeKernel() {
        return ProbeProgram.kernelName(context, slots());
    }

    /**
     * The baseline window's kernel: the baseline context at the probe's size, so the pair compares like with like.
     *
     * @return {@link ProbeProgram#kernelName}{@code (baseline, slots)}
     */
    public String baselineKernel() {
        return ProbeProgram.kernelName(baseline, slots());
    }
}
