package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.patch.MovedFunction.Item;

/**
 * Where the moved code goes: the section {@value #NAME}, above everything loaded, in a new
 * executable PT_LOAD (the program header table is rewritten with room for it), or, in a second
 * pass, at the end of the earlier pass's code segment, which grows over it ({@link EarlierCodeSegment}).
 */
final class NewSection {
    /** The name of the section that holds the moved functions. */
    static final String NAME = ".splice.text";

    private NewSection() {}

    /**
     * The first page above everything loaded that keeps the load base (see
     * ElfEditor.addressForNewSegments), for the moved code, its fragments (their assembled sizes:
     * the text of a fragment, its comments, changes nothing) and {@code extra} more bytes; {@code
     * appended} bytes of other sections (not loaded) are appended to the file afterwards. With
     * {@code earlier} (an earlier pass's code segment, the highest), right after that segment.
     */
    static long address(ElfEditor editor, MovedCode moved, long extra, long appended, EarlierCodeSegment earlier) {
        if (earlier != null) { // a second pass: the earlier pass's code segment grows over this code
            return (earlier.end() + 7) & -8;
        }
        long size = extra;
        for (MovedFunction m : moved.functions()) {
            size += 2 * m.function.size() + 64;
            for (Item f : m.fragments.values()) {
                size += f.fragmentSize;
            }
        }
        return editor.addressForNewSegments(8 * size + (1 << 16) + appended);
    }
}
