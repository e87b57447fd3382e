package dev.splice.elf;

import dev.splice.base.Le;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Parses the note entries of one SHT_NOTE section or PT_NOTE segment. */
final class Notes {
    private Notes() {}

    static void parse(byte[] b, String file, long start, long size, long alignment, Section section, List<Note> out) {
        // Notes are padded to 4 bytes, except in 8-aligned note sections such as .note.gnu.property.
        if (alignment > 8) {
            throw new ElfFormatException(file, start, "note " + where(section) + "has alignment " + alignment
                    + ", expected 4 or 8");
        }
        int align = alignment == 8 ? 8 : 4;
        long at = start;
        long end = start + size;
        while (at < end) {
            if (end - at < 12) {
                throw new ElfFormatException(file, at, "truncated note header in " + where(section)
                        + "(" + (end - at) + " bytes left, 12 needed)");
            }
            long nameSize = Le.u32L(b, at);
            long descSize = Le.u32L(b, at + 4);
            int type = Le.u32(b, at + 8);
            long nameAt = at + 12;
            // Padding aligns offsets from the note's start: name at 12, descriptor and next note aligned.
            long descAt = at + pad(12 + nameSize, align);
            if (nameSize > end - nameAt || descAt > end || descSize > end - descAt) {
                throw new ElfFormatException(file, at, "note " + where(section) + "with name size " + nameSize
                        + " and descriptor size " + descSize + " extends past its end");
            }
            int nameLength = (int) nameSize;
            while (nameLength > 0 && b[(int) (nameAt + nameLength - 1)] == 0) {
                nameLength--;
            }
            String owner = new String(b, (int) nameAt, nameLength, StandardCharsets.UTF_8);
            byte[] descriptor = Arrays.copyOfRange(b, (int) descAt, (int) (descAt + descSize));
            out.add(new Note(owner, type, descriptor, section, at));
            // The last note may lack its trailing padding.
            at = Math.min(end, at + pad(descAt - at + descSize, align));
        }
    }

    private static long pad(long n, int align) {
        return (n + align - 1) & -align;
    }

    private static String where(Section section) {
        return section.index() == 0 && section.type() == Section.SHT_NULL ? "segment " : "section " + section.name() + " ";
    }
}
