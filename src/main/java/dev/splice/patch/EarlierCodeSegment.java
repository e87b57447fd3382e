package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The PT_LOAD of an earlier pass's new code, when a second {@code splice patch} can grow it over
 * its own new code instead of adding a segment: it is the highest PT_LOAD, read-execute only, holds
 * a {@value NewSection#NAME}, and its bytes are the last mapped ones of the file (so the new code
 * follows them there as in memory). The program header table then keeps its size and place, so GNU
 * strip of the output still gives a binary that loads (a table moved to a PT_LOAD of its own, with
 * no section, is written by strip at an offset not congruent to its address: docs/elf.md).
 *
 * @param segment the segment's index in the editor
 * @param end the first address after it
 */
record EarlierCodeSegment(int segment, long end) {
    /**
     * {@return the earlier pass's code segment of the output being edited, or null} Call it before
     * anything is added to the editor's segments.
     *
     * @param editor a fresh editor of an input
     */
    static EarlierCodeSegment of(ElfEditor editor) {
        Segment last = null;
        for (Segment g : editor.segments()) {
            if (g.isLoad() && (last == null || Long.compareUnsigned(g.virtualAddress() + g.memorySize(),
                    last.virtualAddress() + last.memorySize()) > 0)) {
                last = g;
            }
        }
        if (last == null || last.flags() != (Segment.PF_R | Segment.PF_X) || last.fileSize() != last.memorySize()) {
            return null;
        }
        // The new code follows the segment's bytes in the file as in memory only if nothing mapped comes
        // after them there (a twice-patched PIE grown over its first pass's moved program header table,
        // which lay after the code in the file, had its new code one page off: it died at once)
        for (Segment g : editor.segments()) {
            if (g != last && g.fileSize() > 0 && Long.compareUnsigned(g.offset() + g.fileSize(), last.offset() + last.fileSize()) > 0) {
                return null;
            }
        }
        for (Section s : editor.sections()) {
            if (s.name().equals(NewSection.NAME) && s.isAllocated() && last.containsAddress(s.address())) {
                return new EarlierCodeSegment(last.index(), last.virtualAddress() + last.memorySize());
            }
        }
        return null;
    }

    /**
     * Makes the segment cover the allocated sections it holds now and {@code added}, which follow it.
     *
     * @param editor the output
     * @param added the new sections
     */
    void grow(ElfEditor editor, int... added) {
        Segment g = editor.segments().get(segment);
        List<Integer> covered = new ArrayList<>();
        for (Section s : editor.sections()) {
            if (s.isAllocated() && s.size() > 0 && g.containsAddress(s.address())) {
                covered.add(s.index());
            }
        }
        editor.bindSegment(segment, IntStream.concat(covered.stream().mapToInt(Integer::intValue), IntStream.of(added)).toArray());
    }
}
