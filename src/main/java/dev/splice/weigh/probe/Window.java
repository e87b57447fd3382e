package dev.splice.weigh.probe;

/**
 * One marked window of a probe executable, in execution order (the plugin numbers its windows the
 * same way, and the guest stores its clock readings in this order).
 *
 * @param index position in execution order
 * @param context the context whose kernel runs
 * @param probe true for the pair's probe window, false for its baseline window
 * @param warmup true for the warm-up window that precedes every measured window
 * @param calls kernel calls in the window
 * @param pair the index of the pair the window belongs to
 * @param slots target slots of the kernel the window calls (its pair's size)
 */
public record Window(int index, String context, boolean probe, boolean warmup, int calls, int pair, int slots) {
    /**
     * The kernel the window calls.
     *
     * @return {@link ProbeProgram#kernelName}{@code (context, slots)}
     */
    public String kernel() {
        return ProbeProgram.kernelName(context, slots);
    }
}
