package dev.splice.weigh.measure;

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
    /** Profile defaults: contexts, runs and rounds. */
    public record Profile(String name, String contexts, int runs, int rounds) {}

    public static final Profile QUICK = new Profile("quick",
            "addi.independent,mul.dependency,div.dependency,jalr.indirect-jump", 2, 4);
    /** The seed's design: 12 runs; 10 rounds x 3 batches = 360 pairs per context. */
    public static final Profile FORMAL = new Profile("formal", "*", 12, 10);

    public static Profile profile(String name) {
        return switch (name) {
            case "quick" -> QUICK;
            case "formal" -> FORMAL;
            default -> throw new dev.splice.base.BadInputException("unknown profile '" + name + "' (quick or formal)");
        };
    }

    /** The seed of run {@code index} (1-based): a SplitMix64 step from the campaign seed. */
    public long runSeed(int index) {
        long z = seed + 0x9E3779B97F4A7C15L * index;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
