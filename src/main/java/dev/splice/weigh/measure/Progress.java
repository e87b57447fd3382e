package dev.splice.weigh.measure;

/** Receives progress of a campaign: passes done out of all passes. */
@FunctionalInterface
public interface Progress {
    void update(int done, int total);

    Progress NONE = (done, total) -> {};
}
