package dev.splice.patch;

/**
 * Insert the assembled {@code fragment} before the instruction at {@code address} (in the input
 * binary's coordinates); {@code fragmentName} names the fragment in messages.
 */
public record Insertion(long address, String fragment, String fragmentName, BranchTarget branchTarget) {
    public Insertion(long address, String fragment, BranchTarget branchTarget) {
        this(address, fragment, "fragment@0x" + Long.toHexString(address), branchTarget);
    }
}
