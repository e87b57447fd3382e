package dev.splice.weigh.model;

/**
 * One probe/baseline pair as the measurement harness writes it (a line of {@code pairs.jsonl} or
 * {@code pairs-off.jsonl}). Times are nanoseconds; an absent (null) time is {@code NaN}.
 *
 * @param key the catalog semantic key when the row carries one ({@code null} otherwise)
 * @param orderAB true when the probe window ran first
 * @param where "file:line" of the row, for messages
 */
public record Pair(
        String run,
        String context,
        String baseline,
        String key,
        int batch,
        boolean orderAB,
        int round,
        double position,
        double probeNs,
        double baselineNs,
        double probeGuestNs,
        double baselineGuestNs,
        int translations,
        String where) {

    /** Thread-CPU-time difference per target instruction, NaN when a time is missing. */
    public double perInstructionNs() {
        return (probeNs - baselineNs) / batch;
    }

    /** Guest-clock difference per target instruction, NaN when a time is missing. */
    public double perInstructionGuestNs() {
        return (probeGuestNs - baselineGuestNs) / batch;
    }
}
