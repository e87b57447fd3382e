package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.patch.MovedFunction.Item;

/**
 * Where the moved code goes: the section {@value #NAME}, above everything loaded, in a new
 * executable PT_LOAD (the program header table is rewritten with room for it).
 */
final class NewSection {
    /** The name of the section that holds the moved functions. */
    static final String NAME = ".splice.text";

    private NewSection() {}

    /** The first page above everything loaded that keeps the load base (see ElfEditor.addressForNewSegments). */
    static long address(ElfEditor editor, MovedCode moved) {
        long size = 0;
        for (MovedFunction m : moved.functions()) {
            size += 2 * m.function.size() + 64;
            for (Item f : m.fragments.values()) {
                for (Insertion i : f.insertions) {
                    size += 4L * i.fragment().length();
                }
            }
        }
        return editor.addressForNewSegments(8 * size + (1 << 16));
    }
}
