package dev.splice.patch;

/**
 * Where references to an insertion address go: {@code INSERTED} runs the fragment first (the
 * default), {@code ORIGINAL} skips it and lands on the original instruction. Fall-through always
 * runs the fragment.
 */
public enum BranchTarget {
    INSERTED, ORIGINAL
}
