package dev.splice.patch;

/**
 * Insert the assembled {@code fragment} before the instruction at {@code address} (in the input
 * binary's coordinates).
 *
 * @param address the instruction the fragment goes before
 * @param fragment the fragment's listing text (no region line; see docs/patch.md, "Fragments")
 * @param fragmentName names the fragment in messages
 * @param branchTarget where references to {@code address} go
 */
public record Insertion(long address, String fragment, String fragmentName, BranchTarget branchTarget) {
    /**
     * An insertion whose fragment is named after its address in messages.
     *
     * @param address the instruction the fragment goes before
     * @param fragment the fragment's listing text
     * @param branchTarget where references to {@code address} go
     */
    public Insertion(long address, String fragment, BranchTarget branchTarget) {
        this(address, fragment, "fragment@0x" + Long.toHexString(address), branchTarget);
    }
}
