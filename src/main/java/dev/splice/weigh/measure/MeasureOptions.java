package dev.splice.weigh.measure;

import dev.splice.base.BadInputException;
import java.nio.file.Path;

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
 */
public record MeasureOptions(String contexts, String profile, int runs, int rounds, long seed, boolean resume, int jobs,
        Path out) {
    /**
     * Profile defaults: contexts, runs and rounds.
     *
     * @param name {@code quick} or {@code formal}
     * @param contexts context patterns
     * @param runs independent QEMU runs
     * @param rounds probe rounds per run
     */
    public record Profile(String name, String contexts, int runs, int rounds) {}

    /** A few contexts, 2 runs x 4 rounds. */
    public static final Profile QUICK = new Profile("quick",
            "addi.independent,mul.dependency,div.dependency,jalr.indirect-jump", 2, 4);
    /** The seed's design: 12 runs; 10 rounds x 3 batches = 360 pairs per context. */
    public static final Profile FORMAL = new Profile("formal", "*", 12, 10);

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
     * @return the options
     * @throws BadInputException for an unknown profile or a count out of range
     */
    public static MeasureOptions of(String profile, String contexts, Integer runs, Integer rounds, long seed,
            boolean resume, int jobs, Path out) {
        Profile p = profile(profile);
        int r = runs != null ? runs : p.runs();
        int rr = rounds != null ? rounds : p.rounds();
        if (r < 1 || r > 999 || rr < 1 || rr > 10_000 || jobs < 1) {
            throw new BadInputException("--runs must be 1..999, --rounds 1..10000, --jobs at least 1");
        }
        return new MeasureOptions(contexts != null ? contexts : p.contexts(), p.name(), r, rr, seed, resume, jobs, out);
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
