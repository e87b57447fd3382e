package dev.splice.weigh.probe;

import java.util.List;

/**
 * What one probe executable measures and in which order.
 *
 * @param seed the run's seed: it alone draws the order of pairs within a round and AB/BA
 * @param rounds probe rounds; each round measures every context and batch once as a pair
 * @param calls kernel calls per window (each kernel has {@link ProbeProgram#SLOTS} slots), e.g. 4, 16, 64
 * @param warmupCalls kernel calls of the warm-up window before every measured window (at least 2, so
 *     that the call loop's taken back edge is translated too)
 */
public record ProbeOptions(long seed, int rounds, List<Integer> calls, int warmupCalls) {
    /** The batches of issue 4: 4, 16 and 64 calls of 1024 slots. */
    public static final List<Integer> DEFAULT_CALLS = List.of(4, 16, 64);

    /**
     * Copies the calls and checks the ranges.
     *
     * @param seed see {@link #seed()}
     * @param rounds see {@link #rounds()}
     * @param calls see {@link #calls()}
     * @param warmupCalls see {@link #warmupCalls()}
     * @throws IllegalArgumentException when a value is out of its range
     */
    public ProbeOptions {
        calls = List.copyOf(calls);
        if (rounds < 1 || rounds > 10_000) {
            throw new IllegalArgumentException("rounds must be 1..10000");
        }
        if (calls.isEmpty() || calls.stream().anyMatch(c -> c < 1 || c > 1 << 20)) {
            throw new IllegalArgumentException("calls per window must be 1..2^20");
        }
        if (warmupCalls < 2 || warmupCalls > 1 << 20) {
            throw new IllegalArgumentException("warm-up calls must be 2..2^20");
        }
    }

    /**
     * The default batches and 2 warm-up calls.
     *
     * @param seed the run's seed
     * @param rounds probe rounds
     * @return the options
     */
    public static ProbeOptions of(long seed, int rounds) {
        return new ProbeOptions(seed, rounds, DEFAULT_CALLS, 2);
    }
}
