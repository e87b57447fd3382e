package dev.splice.weigh.measure;

/** Receives progress of a campaign: passes done out of all passes. */
@FunctionalInterface
public interface Progress {
    /**
     * Called from the campaign's threads as passes finish (first with 0 done).
     *
     * @param done passes finished
     * @param total passes to run (0 when every run was resumed)
     */
    void update(int done, int total);
}
