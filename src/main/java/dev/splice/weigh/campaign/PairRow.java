package dev.splice.weigh.campaign;

/**
 * One probe/baseline pair: a line of {@code pairs.jsonl} (plugin on) or {@code pairs-off.jsonl}
 * (plugin off), as {@code splice weigh measure} writes it and {@code splice weigh model} reads it
 * (docs/formats.md, "Campaign input"). {@link PairRows} reads and writes the files. Times are
 * nanoseconds; an absent (null) time is {@code NaN}.
 *
 * @param run QEMU run id (one process); runs are ordered by name
 * @param context context key, e.g. {@code div.dependency}
 * @param baseline key of the baseline kernel: a measured context, or a shape (zero reference)
 * @param key the catalog semantic key of the context when the row names one, else {@code null}
 * @param batch target executions per window (N), at least 1
 * @param order which window ran first
 * @param round probe round within the run, at least 0
 * @param position time position of the pair within the run, in [0, 1]
 * @param windows where the pair ran in its probe executable; {@code null} when the row does not say
 * @param probeNs thread CPU time of the probe window ({@code NaN} in plugin-off rows)
 * @param baselineNs thread CPU time of the baseline window ({@code NaN} in plugin-off rows)
 * @param probeGuestNs the guest's own calibrated clock over the probe window, or {@code NaN}
 * @param baselineGuestNs the guest's own calibrated clock over the baseline window, or {@code NaN}
 * @param translations translations seen while the two windows were open; {@code null} when not
 *     observed (plugin-off rows)
 */
public record PairRow(
        String run,
        String context,
        String baseline,
        String key,
        int batch,
        Order order,
        int round,
        double position,
        Windows windows,
        double probeNs,
        double baselineNs,
        double probeGuestNs,
        double baselineGuestNs,
        Integer translations) {

    /** Which of the pair's two windows ran first. */
    public enum Order {
        /** The probe window first. */
        AB,
        /** The baseline window first. */
        BA
    }

    /**
     * Where a pair ran in its probe executable.
     *
     * @param calls kernel calls per window
     * @param probeWindow the probe window's index in the run, as the plugin numbers windows
     * @param baselineWindow the baseline window's index in the run
     */
    public record Windows(int calls, int probeWindow, int baselineWindow) {}

    /**
     * The translations inside the windows, 0 when not observed.
     *
     * @return {@link #translations()} or 0
     */
    public int translationCount() {
        return translations == null ? 0 : translations;
    }

    /**
     * Thread-CPU-time difference per target instruction.
     *
     * @return (probe - baseline) / batch in ns, {@code NaN} when a time is missing
     */
    public double perInstructionNs() {
        return (probeNs - baselineNs) / batch;
    }

    /**
     * Guest-clock difference per target instruction.
     *
     * @return (probe - baseline) / batch in ns, {@code NaN} when a time is missing
     */
    public double perInstructionGuestNs() {
        return (probeGuestNs - baselineGuestNs) / batch;
    }
}
