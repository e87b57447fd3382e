package dev.splice;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.PointSpec;
import dev.splice.patch.Replacement;
import java.nio.file.Path;

/**
 * A rewrite of a {@link Binary}, from {@link Binary#rewrite()}: equal-length replacements of
 * functions and insertions of fragments before instructions, applied when written. Replacements
 * come first; insertion addresses are the input's. Insertion needs a binary linked with
 * {@code -Wl,--emit-relocs}. What Splice cannot prove correct is refused (see docs/patch.md).
 *
 * <p>Listings and fragments are text in the listing format that {@code splice asm} reads, such as
 * {@code "addi zero, zero, 0\n"}.
 */
public final class Rewrite {
    private final dev.splice.patch.Rewrite rewrite;

    Rewrite(ElfFile elf) {
        this.rewrite = dev.splice.patch.Rewrite.of(elf);
    }

    /**
     * Replaces a function's code by an assembled listing of the same length.
     *
     * @param function a function name, or {@code 0xADDRESS} of its first instruction
     * @param listing the listing text
     * @return this rewrite
     */
    public Rewrite replace(String function, String listing) {
        rewrite.replace(new Replacement(function, listing, "listing for " + function));
        return this;
    }

    /**
     * Inserts an assembled fragment before the instruction at an address; branches to the address
     * run the fragment too. Several fragments at one address run in the order they were added.
     *
     * @param address an instruction's address in the input binary
     * @param fragment the fragment's text
     * @return this rewrite
     */
    public Rewrite insert(long address, String fragment) {
        return insert(address, fragment, BranchTarget.INSERTED);
    }

    /**
     * Inserts an assembled fragment before the instruction at an address.
     *
     * @param address an instruction's address in the input binary
     * @param fragment the fragment's text
     * @param branchTarget where direct branches, calls and other references to the address go:
     *     into the fragment ({@link BranchTarget#INSERTED}) or past it ({@link
     *     BranchTarget#ORIGINAL}); falling through always runs it
     * @return this rewrite
     */
    public Rewrite insert(long address, String fragment, BranchTarget branchTarget) {
        rewrite.insert(new Insertion(address, fragment, branchTarget));
        return this;
    }

    /**
     * Inserts an assembled fragment at every point a spec selects (see {@link Binary#points});
     * branches to the points run the fragment too. A point a pattern selects that Splice refuses is
     * left out (listed in {@link dev.splice.patch.Rewrite.Result#refusedPoints()} of {@link #run()})
     * unless the rewrite is {@link #strict(boolean) strict}; an explicit address or
     * {@code SYMBOL+OFFSET} is refused as {@link #insert(long, String)} refuses it.
     *
     * @param spec the point spec, such as {@code "loop:hot_loop"} or {@code "main+0x1a"}
     * @param fragment the fragment's text
     * @return this rewrite
     * @throws BadInputException when the spec is malformed (naming the spec and the column)
     */
    public Rewrite at(String spec, String fragment) {
        return at(spec, fragment, BranchTarget.INSERTED);
    }

    /**
     * Inserts an assembled fragment at every point a spec selects, with a branch target policy.
     *
     * @param spec the point spec
     * @param fragment the fragment's text
     * @param branchTarget where direct branches, calls and other references to the points go
     * @return this rewrite
     * @throws BadInputException when the spec is malformed
     */
    public Rewrite at(String spec, String fragment, BranchTarget branchTarget) {
        rewrite.at(PointSpec.parse(spec), fragment, "fragment at " + spec, branchTarget);
        return this;
    }

    /**
     * Whether a point a pattern selects and Splice refuses fails the rewrite instead of being left out.
     *
     * @param strict true to refuse the whole rewrite then
     * @return this rewrite
     */
    public Rewrite strict(boolean strict) {
        rewrite.strict(strict);
        return this;
    }

    /**
     * Applies the rewrite in memory and says what was done.
     *
     * @return the output's bytes, the points that received fragments and those left out
     * @throws BadInputException as {@link #toBytes()}
     */
    public dev.splice.patch.Rewrite.Result run() {
        return rewrite.run();
    }

    /**
     * Applies the rewrite in memory.
     *
     * @return the bytes of the rewritten file
     * @throws BadInputException when a listing or fragment does not assemble or the rewrite is
     *     refused; the message says what, where and why, and a refusal is a {@link
     *     dev.splice.patch.PatchException} whose {@code reason()} says which rule refused it
     */
    public byte[] toBytes() {
        return rewrite.run().bytes();
    }

    /**
     * Applies the rewrite and writes the result atomically (a refused rewrite leaves no file), then
     * makes it executable where the file system allows.
     *
     * @param output the file to write (replaced if it exists)
     * @throws BadInputException as {@link #toBytes()}, or when the file cannot be written
     */
    public void writeTo(Path output) {
        rewrite.writeTo(output);
    }
}
