package dev.splice.weigh.probe;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one probe executable measures and in which order.
 *
 * @param seed the run's seed: it alone draws the order of pairs within a round and AB/BA
 * @param rounds probe rounds; each round measures every context and batch once as a pair
 * @param calls kernel calls per window (each kernel has {@link ProbeProgram#SLOTS} slots), e.g. 4, 16, 64
 * @param warmupCalls kernel calls of the warm-up window before every measured window (at least 2, so
 *     that the call loop's taken back edge is translated too)
 * @param slots target slots per kernel call of each context that does not run {@link ProbeProgram#SLOTS}
 *     (a power of two, 1 to {@code SLOTS}): the context's pairs run its kernel and its baseline's at that size
 *     (issue 12: windows that bound an interrupt; docs/weigh-measure.md)
 */
public record ProbeOptions(long seed, int rounds, List<Integer> calls, int warmupCalls, Map<String, Integer> slots) {
    /** The batches of issue 4: 4, 16 and 64 calls of 1024 slots. */
    public static final List<Integer> DEFAULT_CALLS = List.of(4, 16, 64);

    /**
     * Copies the calls and checks the ranges.
     *
     * @param seed see {@link #seed()}
     * @param rounds see {@link #rounds()}
     * @param calls see {@link #calls()}
     * @param warmupCalls see {@link #warmupCalls()}
     * @param slots see {@link #slots()}
     * @throws IllegalArgumentException when a value is out of its range
     */
    public ProbeOptions {
        calls = List.copyOf(calls);
        slots = java.util.Collections.unmodifiableMap(new TreeMap<>(slots));
        if (slots.values().stream().anyMatch(n -> n < 1 || n > ProbeProgram.SLOTS || Integer.bitCount(n) != 1)) {
            throw new IllegalArgumentException("slots per kernel must be a power of two, 1.." + ProbeProgram.SLOTS);
        }
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
     * Every kernel at {@link ProbeProgram#SLOTS} slots.
     *
     * @param seed see {@link #seed()}
     * @param rounds see {@link #rounds()}
     * @param calls see {@link #calls()}
     * @param warmupCalls see {@link #warmupCalls()}
     */
    public ProbeOptions(long seed, int rounds, List<Integer> calls, int warmupCalls) {
        this(seed, rounds, calls, warmupCalls, Map.of());
    }

    /**
     * The slots per kernel call of a context's pairs.
     *
     * @param context a context key
     * @return its entry in {@link #slots()}, else {@link ProbeProgram#SLOTS}
     */
    public int slotsOf(String context) {
        return slots.getOrDefault(context, ProbeProgram.SLOTS);
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
