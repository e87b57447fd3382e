package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Segment;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.PatchException.Reason;

/**
 * Where the moved code goes: the section {@value #NAME}, above everything loaded, in a new
 * executable PT_LOAD made from a program header the program does not need at run time (the table
 * cannot grow in place).
 */
final class NewSection {
    /** The name of the section that holds the moved functions. */
    static final String NAME = ".splice.text";

    private NewSection() {}

    /**
     * The first page above everything loaded that keeps the load base (see
     * ElfEditor.addressForNewSegments), for the moved code, its fragments (their assembled sizes:
     * the text of a fragment, its comments, changes nothing) and {@code extra} more bytes.
     */
    static long address(ElfEditor editor, MovedCode moved, long extra) {
        long size = extra;
        for (MovedFunction m : moved.functions()) {
            size += 2 * m.function.size() + 64;
            for (Item f : m.fragments.values()) {
                size += f.fragmentSize;
            }
        }
        return editor.addressForNewSegments(8 * size + (1 << 16));
    }

    /**
     * Turns the spare PT_RISCV_ATTRIBUTES entry (else PT_GNU_STACK) into an empty R X PT_LOAD and
     * returns its index, for {@link ElfEditor#bindSegment}; refuses a table without one.
     */
    static int spareProgramHeader(ElfEditor editor, String file) {
        for (int type : new int[] {Segment.PT_RISCV_ATTRIBUTES, Segment.PT_GNU_STACK}) {
            for (Segment s : editor.segments()) {
                if (s.type() == type) {
                    editor.setSegment(new Segment(s.index(), Segment.PT_LOAD, Segment.PF_R | Segment.PF_X, 0, 0, 0, 0, 0,
                            ElfEditor.PAGE_SIZE));
                    return s.index();
                }
            }
        }
        throw new PatchException(Reason.NO_SPARE_PROGRAM_HEADER, file + ": no spare program header (PT_RISCV_ATTRIBUTES "
                + "or PT_GNU_STACK) for the new code segment; the program header table cannot grow in place");
    }
}
