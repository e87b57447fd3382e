package dev.splice.elf;

import dev.splice.base.Le;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads and validates the ELF header, the section header table and the program header table.
 * Every offset, size and count is checked against the file before it is used, so no allocation
 * is sized by an unchecked field. Symbol tables, relocations and notes are parsed on demand by
 * {@link ElfFile} with the same discipline.
 */
final class ElfReader {
    /** What the reader produced: the header, both tables and the raw sh_name of each section. */
    record Layout(ElfHeader header, List<Section> sections, int[] sectionNameOffsets, List<Segment> segments) {}

    private final byte[] b;
    private final String file;
    private final long length;

    private ElfReader(byte[] bytes, String file) {
        this.b = bytes;
        this.file = file;
        this.length = bytes.length;
    }

    static Layout read(byte[] bytes, String file) {
        return new ElfReader(bytes, file).read();
    }

    private ElfFormatException bad(long offset, String reason) {
        return new ElfFormatException(file, offset, reason);
    }

    private Layout read() {
        ElfHeader h = readHeader();
        long shoff = h.shoff();
        int shnum = h.shnum();
        // Section 0 holds the real counts when they do not fit the header (extended numbering).
        long count = 0;
        long section0 = shoff;
        if (shoff == 0) {
            if (shnum != 0) {
                throw bad(60, "e_shnum is " + shnum + " but e_shoff is 0 (no section header table)");
            }
            if (h.shstrndx() != 0) {
                throw bad(62, "e_shstrndx is " + h.shstrndx() + " but there is no section header table");
            }
        } else {
            if (h.shentsize() != Section.HEADER_SIZE) {
                throw bad(58, "e_shentsize is " + h.shentsize() + ", expected " + Section.HEADER_SIZE + " for ELF64");
            }
            if (shoff < 0 || shoff > length - Section.HEADER_SIZE) {
                throw bad(40, "section header table offset 0x" + Long.toHexString(shoff)
                        + " is beyond the end of the file (" + length + " bytes)");
            }
            if (shoff < ElfHeader.SIZE) {
                throw bad(40, "section header table at 0x" + Long.toHexString(shoff) + " overlaps the ELF header");
            }
            count = shnum != 0 ? shnum : Le.u64(b, section0 + 32);
            if (count == 0) {
                throw bad(section0 + 32, "e_shnum is 0 and section 0's sh_size gives no section count");
            }
            long room = (length - shoff) / Section.HEADER_SIZE;
            if (count < 0 || count > room) {
                throw bad(shnum != 0 ? 60 : section0 + 32, "section header table of " + Long.toUnsignedString(count)
                        + " entries at 0x" + Long.toHexString(shoff) + " extends past the end of the file ("
                        + length + " bytes)");
            }
        }
        long phnum = h.phnum();
        if (phnum == ElfHeader.PN_XNUM && count > 0) {
            phnum = Le.u32L(b, section0 + 44);
        }
        long phoff = h.phoff();
        if (phnum > 0) {
            if (h.phentsize() != Segment.HEADER_SIZE) {
                throw bad(54, "e_phentsize is " + h.phentsize() + ", expected " + Segment.HEADER_SIZE + " for ELF64");
            }
            if (phoff < 0 || phoff > length || phnum > (length - phoff) / Segment.HEADER_SIZE) {
                throw bad(32, "program header table of " + phnum + " entries at 0x" + Long.toHexString(phoff)
                        + " extends past the end of the file (" + length + " bytes)");
            }
            if (phoff < ElfHeader.SIZE) {
                throw bad(32, "program header table at 0x" + Long.toHexString(phoff) + " overlaps the ELF header");
            }
            if (count > 0 && overlaps(phoff, phnum * Segment.HEADER_SIZE, shoff, count * Section.HEADER_SIZE)) {
                throw bad(32, "program header table at 0x" + Long.toHexString(phoff)
                        + " overlaps the section header table at 0x" + Long.toHexString(shoff));
            }
        }
        List<Segment> segments = readSegments(phoff, (int) phnum);
        int[] nameOffsets = new int[(int) count];
        List<Section> sections = readSections(h, (int) count, nameOffsets);
        return new Layout(h, sections, nameOffsets, segments);
    }

    private ElfHeader readHeader() {
        if (length < 16) {
            throw bad(length, "file of " + length + " bytes is too short for an ELF identification (16 bytes)");
        }
        if (b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F') {
            throw bad(0, "not an ELF file (bad magic number)");
        }
        int elfClass = b[4] & 0xff;
        if (elfClass != ElfHeader.ELFCLASS64) {
            throw bad(4, (elfClass == 1 ? "32-bit ELF (ELFCLASS32)" : "ELF class " + elfClass)
                    + " is not supported: Splice reads ELF64 only");
        }
        int data = b[5] & 0xff;
        if (data != ElfHeader.ELFDATA2LSB) {
            throw bad(5, (data == 2 ? "big-endian ELF (ELFDATA2MSB)" : "ELF data encoding " + data)
                    + " is not supported: Splice reads little-endian ELF only");
        }
        int identVersion = b[6] & 0xff;
        if (identVersion != ElfHeader.EV_CURRENT) {
            throw bad(6, "unsupported ELF identification version " + identVersion);
        }
        if (length < ElfHeader.SIZE) {
            throw bad(length, "truncated ELF header: the file has " + length + " bytes, the header needs 64");
        }
        ElfHeader h = new ElfHeader(elfClass, data, identVersion, b[7] & 0xff, b[8] & 0xff,
                Le.u16(b, 16), Le.u16(b, 18), Le.u32(b, 20), Le.u64(b, 24), Le.u64(b, 32), Le.u64(b, 40),
                Le.u32(b, 48), Le.u16(b, 52), Le.u16(b, 54), Le.u16(b, 56), Le.u16(b, 58), Le.u16(b, 60),
                Le.u16(b, 62));
        if (h.version() != ElfHeader.EV_CURRENT) {
            throw bad(20, "unsupported e_version " + Integer.toUnsignedString(h.version()));
        }
        if (h.ehsize() != ElfHeader.SIZE) {
            throw bad(52, "e_ehsize is " + h.ehsize() + ", expected 64 for ELF64");
        }
        return h;
    }

    private List<Segment> readSegments(long phoff, int phnum) {
        List<Segment> segments = new ArrayList<>(phnum);
        for (int i = 0; i < phnum; i++) {
            long at = phoff + (long) i * Segment.HEADER_SIZE;
            Segment s = new Segment(i, Le.u32(b, at), Le.u32(b, at + 4), Le.u64(b, at + 8), Le.u64(b, at + 16),
                    Le.u64(b, at + 24), Le.u64(b, at + 32), Le.u64(b, at + 40), Le.u64(b, at + 48));
            if (s.fileSize() != 0 && !inFile(s.offset(), s.fileSize())) {
                throw bad(at + 8, "segment [" + i + "] " + s.typeName() + " (offset 0x" + Long.toHexString(s.offset())
                        + ", size 0x" + Long.toHexString(s.fileSize()) + ") extends past the end of the file ("
                        + length + " bytes)");
            }
            if (s.type() == Segment.PT_LOAD && Long.compareUnsigned(s.fileSize(), s.memorySize()) > 0) {
                throw bad(at + 32, "segment [" + i + "] LOAD has a file size 0x" + Long.toHexString(s.fileSize())
                        + " larger than its memory size 0x" + Long.toHexString(s.memorySize()));
            }
            if (!isPowerOfTwoOrZero(s.alignment())) {
                throw bad(at + 48, "segment [" + i + "] " + s.typeName() + " has alignment 0x"
                        + Long.toHexString(s.alignment()) + ", not a power of two");
            }
            segments.add(s);
        }
        return Collections.unmodifiableList(segments);
    }

    private List<Section> readSections(ElfHeader h, int count, int[] nameOffsets) {
        if (count == 0) {
            return List.of();
        }
        long shoff = h.shoff();
        long tableSize = (long) count * Section.HEADER_SIZE;
        // Raw headers first; names need the section name string table, which is one of them.
        long[][] raw = new long[count][];
        for (int i = 0; i < count; i++) {
            long at = shoff + (long) i * Section.HEADER_SIZE;
            nameOffsets[i] = Le.u32(b, at);
            raw[i] = new long[] {Le.u32L(b, at + 4), Le.u64(b, at + 8), Le.u64(b, at + 16), Le.u64(b, at + 24),
                Le.u64(b, at + 32), Le.u32L(b, at + 40), Le.u32L(b, at + 44), Le.u64(b, at + 48), Le.u64(b, at + 56)};
            checkSectionPlacement(i, raw[i], at, shoff, tableSize, count);
        }
        long shstrndx = h.shstrndx() == Section.SHN_XINDEX ? raw[0][5] : h.shstrndx();
        StringTable names = null;
        if (shstrndx != Section.SHN_UNDEF) {
            if (shstrndx >= count) {
                throw bad(h.shstrndx() == Section.SHN_XINDEX ? shoff + 40 : 62,
                        "section name string table index " + shstrndx + " is out of range (" + count + " sections)");
            }
            long[] r = raw[(int) shstrndx];
            if (r[0] != Section.SHT_STRTAB) {
                throw bad(shoff + shstrndx * Section.HEADER_SIZE + 4,
                        "section name string table [" + shstrndx + "] has type " + r[0] + ", expected STRTAB (3)");
            }
            names = new StringTable(b, file, section((int) shstrndx, ".shstrtab", r));
        }
        List<Section> sections = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long at = shoff + (long) i * Section.HEADER_SIZE;
            String name = names == null ? "" : names.get(nameOffsets[i], at);
            sections.add(section(i, name, raw[i]));
        }
        for (Section s : sections) {
            checkLinks(s, sections, shoff + (long) s.index() * Section.HEADER_SIZE);
        }
        return Collections.unmodifiableList(sections);
    }

    private static Section section(int index, String name, long[] r) {
        return new Section(index, name, (int) r[0], r[1], r[2], r[3], r[4], (int) r[5], (int) r[6], r[7], r[8]);
    }

    /** File range, overlap and alignment checks that need no names. */
    private void checkSectionPlacement(int i, long[] r, long at, long shoff, long tableSize, int count) {
        long type = r[0];
        long offset = r[3];
        long size = r[4];
        if (type != Section.SHT_NOBITS && type != Section.SHT_NULL && size != 0) {
            if (!inFile(offset, size)) {
                throw bad(at + 24, "section [" + i + "] (offset 0x" + Long.toHexString(offset) + ", size 0x"
                        + Long.toHexString(size) + ") extends past the end of the file (" + length + " bytes)");
            }
            if (offset < ElfHeader.SIZE) {
                throw bad(at + 24, "section [" + i + "] at 0x" + Long.toHexString(offset) + " overlaps the ELF header");
            }
            if (overlaps(offset, size, shoff, tableSize)) {
                throw bad(at + 24, "section [" + i + "] at 0x" + Long.toHexString(offset)
                        + " overlaps the section header table at 0x" + Long.toHexString(shoff));
            }
        }
        if (type == Section.SHT_NULL && (r[1] & (Section.SHF_ALLOC | Section.SHF_EXECINSTR)) != 0 && size != 0) {
            // An inactive header has no bytes in the file; one that claims to be loaded code would give readers a size
            // its (empty) contents do not have.
            throw bad(at + 8, "section [" + i + "] of type NULL (inactive) is flagged allocated or executable with size 0x"
                    + Long.toHexString(size));
        }
        if (!isPowerOfTwoOrZero(r[7])) {
            throw bad(at + 48, "section [" + i + "] has alignment 0x" + Long.toHexString(r[7]) + ", not a power of two");
        }
        if (r[5] >= count) {
            throw bad(at + 40, "section [" + i + "] has sh_link " + r[5] + ", out of range (" + count + " sections)");
        }
    }

    /**
     * "section [N] NAME", for messages. Built only when a check fails: the first string
     * concatenation of a run bootstraps StringConcatFactory, milliseconds of every start-up.
     */
    private static String what(Section s) {
        return "section [" + s.index() + "] " + s.name();
    }

    /** sh_link / sh_info targets and entry sizes of the sections Splice parses. */
    private void checkLinks(Section s, List<Section> all, long at) {
        switch (s.type()) {
            case Section.SHT_SYMTAB, Section.SHT_DYNSYM -> {
                checkEntries(s, Symbol.ENTRY_SIZE, at);
                Section strings = all.get(s.link());
                if (strings.type() != Section.SHT_STRTAB) {
                    throw bad(at + 40, what(s) + " links to section [" + s.link() + "] " + strings.name()
                            + " of type " + strings.type() + ", expected a string table");
                }
                long entries = s.size() / Symbol.ENTRY_SIZE;
                if ((s.info() & 0xffffffffL) > entries) {
                    throw bad(at + 44, what(s) + " says " + Integer.toUnsignedString(s.info())
                            + " local symbols but holds only " + entries);
                }
            }
            case Section.SHT_RELA -> {
                checkEntries(s, Relocation.ENTRY_SIZE, at);
                checkRelocationLinks(s, all, at);
            }
            case Section.SHT_REL -> {
                checkEntries(s, 16, at);
                checkRelocationLinks(s, all, at);
            }
            case Section.SHT_SYMTAB_SHNDX -> {
                checkEntries(s, 4, at);
                int t = all.get(s.link()).type();
                if (t != Section.SHT_SYMTAB) {
                    throw bad(at + 40, what(s) + " must link to a symbol table");
                }
            }
            default -> {
                // Other sections are carried as bytes; their sh_link was range-checked already.
            }
        }
    }

    private void checkRelocationLinks(Section s, List<Section> all, long at) {
        if (s.link() != 0) {
            int t = all.get(s.link()).type();
            if (t != Section.SHT_SYMTAB && t != Section.SHT_DYNSYM) {
                throw bad(at + 40, what(s) + " links to section [" + s.link() + "] of type " + t
                        + ", expected a symbol table");
            }
        }
        if ((s.info() & 0xffffffffL) >= all.size()) {
            throw bad(at + 44, what(s) + " applies to section " + Integer.toUnsignedString(s.info())
                    + ", out of range (" + all.size() + " sections)");
        }
    }

    private void checkEntries(Section s, int entrySize, long at) {
        if (s.entrySize() != entrySize) {
            throw bad(at + 56, what(s) + " has sh_entsize " + s.entrySize() + ", expected " + entrySize);
        }
        // A NOBITS table (as in separate debug files) holds no entries and is read as empty.
        if (!s.isNobits() && s.size() % entrySize != 0) {
            throw bad(at + 32, what(s) + " has size 0x" + Long.toHexString(s.size())
                    + ", not a multiple of its entry size " + entrySize);
        }
    }

    private boolean inFile(long offset, long size) {
        return offset >= 0 && size >= 0 && offset <= length && size <= length - offset;
    }

    private static boolean overlaps(long aStart, long aSize, long bStart, long bSize) {
        return aSize > 0 && bSize > 0 && aStart < bStart + bSize && bStart < aStart + aSize;
    }

    private static boolean isPowerOfTwoOrZero(long v) {
        return v >= 0 && (v & (v - 1)) == 0;
    }
}
