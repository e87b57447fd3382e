package dev.splice.weigh.measure;

import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.List;

/**
 * Options of {@code splice weigh measure}.
 *
 * @param contexts context patterns (ContextTable.select syntax)
 * @param profile quick or formal
 * @param runs independent QEMU runs (each: validation, timing and plugin-off pass)
 * @param rounds probe rounds per run
 * @param seed campaign seed; run {@code i} uses a seed derived from it
 * @param resume keep finished runs found in the output directory
 * @param jobs validation passes run in parallel (timing and plugin-off passes are always sequential)
 * @param out output directory
 * @param windowNs the longest window's target duration (ns) the slots per kernel call of each context are
 *     chosen for by a pilot pass ({@link WindowSizes}); 0: every kernel at {@code ProbeProgram.SLOTS} slots
 */
public record MeasureOptions(String contexts, String profile, int runs, int rounds, long seed, boolean resume, int jobs,
        Path out, long windowNs) {
    /**
     * Profile defaults: contexts, runs, rounds and the kernel calls of each batch.
     *
     * @param name {@code quick} or {@code formal}
     * @param contexts context patterns
     * @param runs independent QEMU runs
     * @param rounds probe rounds per run
     * @param calls kernel calls per window of each batch size (a call runs {@code ProbeProgram.SLOTS} targets)
     */
    public record Profile(String name, String contexts, int runs, int rounds, List<Integer> calls) {
        /**
         * Copies the calls.
         *
         * @param name see {@link #name()}
         * @param contexts see {@link #contexts()}
         * @param runs see {@link #runs()}
         * @param rounds see {@link #rounds()}
         * @param calls see {@link #calls()}
         */
        public Profile {
            calls = List.copyOf(calls);
        }
    }

    /**
     * Kernel calls per window: 1, 4 and 16 calls (of 1024 slots: 1024, 4096 and 16384 targets; contexts
     * whose slots cost more get smaller kernels, {@link WindowSizes}). Issue 12
     * point 3: a host interrupt adds 15 to 60 us to the window it hits, and the chance of a hit grows
     * with the window's length; the earlier 4, 16 and 64 calls made windows of 50 to 450 us for costly
     * contexts, a quarter of which were hit, too many for the bisquare to shed (docs/weigh-measure.md,
     * "Windows that bound an interrupt"). A quarter of the length and three times the rounds keep the
     * campaign's time.
     */
    public static final List<Integer> WINDOW_CALLS = List.of(1, 4, 16);

    /** A few contexts, 2 runs x 4 rounds. */
    public static final Profile QUICK = new Profile("quick",
            "addi.independent,mul.dependency,div.dependency,jalr.indirect-jump", 2, 4, WINDOW_CALLS);
    /** 12 runs; 30 rounds x 3 batches = 1080 pairs per context. */
    public static final Profile FORMAL = new Profile("formal", "*", 12, 30, WINDOW_CALLS);

    /**
     * A profile by name.
     *
     * @param name {@code quick} or {@code formal}
     * @return the profile
     * @throws BadInputException for any other name
     */
    public static Profile profile(String name) {
        return switch (name) {
            case "quick" -> QUICK;
            case "formal" -> FORMAL;
            default -> throw new BadInputException("unknown profile '" + name + "' (quick or formal)");
        };
    }

    /**
     * The options of a profile, with what the caller sets instead.
     *
     * @param profile {@code quick} or {@code formal}
     * @param contexts context patterns, or null for the profile's
     * @param runs independent QEMU runs (1..999), or null for the profile's
     * @param rounds probe rounds per run (1..10000), or null for the profile's
     * @param seed campaign seed
     * @param resume keep finished runs found in the output directory
     * @param jobs validation passes run in parallel, at least 1
     * @param out output directory
     * @param windowNs see {@link #windowNs()}: 0 to 10 ms
     * @return the options
     * @throws BadInputException for an unknown profile or a count out of range
     */
    public static MeasureOptions of(String profile, String contexts, Integer runs, Integer rounds, long seed,
            boolean resume, int jobs, Path out, long windowNs) {
        Profile p = profile(profile);
        int r = runs != null ? runs : p.runs();
        int rr = rounds != null ? rounds : p.rounds();
        if (r < 1 || r > 999 || rr < 1 || rr > 10_000 || jobs < 1) {
            throw new BadInputException("--runs must be 1..999, --rounds 1..10000, --jobs at least 1");
        }
        if (windowNs < 0 || windowNs > 10_000_000) {
            throw new BadInputException("--window-us must be 0..10000 (0: every kernel at 1024 slots)");
        }
        return new MeasureOptions(contexts != null ? contexts : p.contexts(), p.name(), r, rr, seed, resume, jobs, out,
                windowNs);
    }

    /**
     * Kernel calls per window of each batch size, from the profile.
     *
     * @return the calls, smallest first
     */
    public List<Integer> calls() {
        return profile(profile).calls();
    }

    /**
     * The seed of a run: a SplitMix64 step from the campaign seed.
     *
     * @param index the 1-based run number
     * @return the run's seed
     */
    public long runSeed(int index) {
        long z = seed + 0x9E3779B97F4A7C15L * index;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
