package dev.splice.weigh.measure;

import dev.splice.weigh.probe.ProbePair;
import java.util.ArrayList;
import java.util.List;

/**
 * The burn-in round: every run's probe starts with {@link #ROUNDS} extra round(s) of every pair,
 * measured like the others and written to {@code burn-in.jsonl}/{@code burn-in-off.jsonl}, not to
 * the pairs the model reads. The start of a run carries a transient (issue 12 point 3: the first 1 to
 * 10% of a run has two to four times the interrupt rate), which a round measured and set aside keeps
 * out of the model while it stays on record for diagnostics.
 */
final class BurnIn {
    /** Rounds set aside at the start of every run. */
    static final int ROUNDS = 1;

    private BurnIn() {}

    /**
     * The pairs of a probe, split.
     *
     * @param burnIn the burn-in rounds' pairs, numbered from 0 as their own sequence
     * @param measured the other pairs, numbered from 0 and with rounds from 0, as the model reads them
     */
    record Split(List<ProbePair> burnIn, List<ProbePair> measured) {}

    /**
     * Splits a probe's pairs (rounds run in order, so the burn-in pairs come first).
     *
     * @param pairs the probe's pairs in execution order
     * @return the burn-in pairs and the renumbered measured pairs
     */
    static Split split(List<ProbePair> pairs) {
        List<ProbePair> burn = new ArrayList<>();
        List<ProbePair> measured = new ArrayList<>();
        for (ProbePair p : pairs) {
            if (p.round() < ROUNDS) {
                burn.add(p);
            } else {
                measured.add(new ProbePair(p.index() - burn.size(), p.context(), p.baseline(), p.calls(), p.batch(),
                        p.round() - ROUNDS, p.order(), p.probeWindow(), p.baselineWindow()));
            }
        }
        return new Split(burn, measured);
    }
}
