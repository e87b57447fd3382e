package dev.splice.patch;

/**
 * Where references to an insertion address go. Fall-through always runs the fragment.
 */
public enum BranchTarget {
    /** Branches, calls and other references run the fragment first (the default). */
    INSERTED,
    /** They skip it and land on the original instruction. */
    ORIGINAL
}
