package dev.splice.elf;

import dev.splice.base.AtomicFiles;
import dev.splice.base.Le;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A mutable copy of an ELF file's headers and contents that serialises back to bytes.
 *
 * <p>The editor owns three tables: the ELF header, the program header table and the section
 * header table (plus the section name string table when names are added). Everything else is
 * file bytes: sections whose contents are replaced with a different size, and new sections, are
 * appended after the existing contents, and the editor computes their offsets. Sections that are
 * not touched keep their offsets and bytes. With no edits, {@link #toBytes()} reproduces the
 * input byte for byte (the three tables are re-serialised from the model, not copied).
 *
 * <p>Layout of an edited file: [original bytes up to the old section header table] [relocated
 * and new section contents, in section order, each aligned; allocated ones congruent to their
 * address modulo the page size] [program header table, if it outgrew its slot] [section header
 * table]. Mapping new allocated sections (a PT_LOAD covering them, and the program header table
 * when it moves) is the caller's job: {@link #addSegment} and {@link #layout()} give the offsets.
 */
public final class ElfEditor {
    /** Page size used to keep offset and address congruent for new allocated sections. */
    public static final long PAGE_SIZE = 0x1000;
    private static final int DYNAMIC_ENTRY_SIZE = 16;
    private static final long DT_NULL = 0;
    private static final long DT_HASH = 4;
    private static final long DT_GNU_HASH = 0x6ffffef5L;

    private final String name;
    private final int originalShoff;
    private final int originalShCount;
    private final long originalPhoff;
    private final int originalPhnum;
    /** The file bytes: the input's own (never written) until the first in-place write copies them. */
    private byte[] image;
    private boolean imageShared = true;
    private ElfHeader header;
    private final List<Entry> sections = new ArrayList<>();
    private final List<Segment> segments;
    private long programHeaderOffset = -1;
    /** The most zero padding the editor adds to find a free address for a moved program header table. */
    private static final long MAX_GAP = 64L << 20;
    /** Segments whose placement follows sections: segment index -> section indices. */
    private final java.util.Map<Integer, int[]> segmentBindings = new java.util.TreeMap<>();
    /** Strings appended to string tables, per section index: name -> offset. */
    private final java.util.Map<Integer, java.util.Map<String, Integer>> appendedStrings = new java.util.HashMap<>();

    /** One section header being edited; {@code contents} is null while the bytes stay where they are. */
    private static final class Entry {
        boolean isNobits() {
            return header.type() == Section.SHT_NOBITS;
        }

        String name;
        int nameOffset;
        Section header;
        byte[] contents;
        /** The used part of {@code contents} (which may have room to grow). */
        int length;

        Entry(String name, int nameOffset, Section header, byte[] contents) {
            this.name = name;
            this.nameOffset = nameOffset;
            this.header = header;
            this.contents = contents;
            this.length = contents == null ? 0 : contents.length;
        }
    }

    /**
     * Where {@link #toBytes()} puts the tables and each section.
     *
     * @param programHeaderOffset the file offset of the program header table
     * @param sectionHeaderOffset the file offset of the section header table (0 without one)
     * @param sections the section headers as written
     * @param segments the program headers as written
     * @param length the file's size
     */
    public record Layout(long programHeaderOffset, long sectionHeaderOffset, List<Section> sections,
                         List<Segment> segments, int length) {}

    ElfEditor(ElfFile elf) {
        this.name = elf.name();
        this.image = elf.rawBytes();
        this.header = elf.header();
        this.originalShoff = (int) header.shoff();
        this.originalShCount = elf.sections().size();
        this.originalPhoff = header.phoff();
        this.originalPhnum = elf.segments().size();
        for (Section s : elf.sections()) {
            sections.add(new Entry(s.name(), elf.sectionNameOffset(s.index()), s, null));
        }
        this.segments = new ArrayList<>(elf.segments());
    }

    /** {@return the name of the file being edited, for messages} */
    public String name() {
        return name;
    }

    /** {@return the ELF header as it is now} */
    public ElfHeader header() {
        return header;
    }

    /**
     * Replaces the header fields; e_phoff, e_shoff and the counts are recomputed by {@link #toBytes()}.
     *
     * @param newHeader the new fields
     */
    public void setHeader(ElfHeader newHeader) {
        this.header = newHeader;
    }

    /**
     * Sets the entry point (e_entry).
     *
     * @param entry the new entry address
     */
    public void setEntry(long entry) {
        ElfHeader h = header;
        header = new ElfHeader(h.elfClass(), h.dataEncoding(), h.identVersion(), h.osAbi(), h.abiVersion(), h.type(),
                h.machine(), h.version(), entry, h.phoff(), h.shoff(), h.flags(), h.ehsize(), h.phentsize(), h.phnum(),
                h.shentsize(), h.shnum(), h.shstrndx());
    }

    /** {@return the section headers as they are now (offsets of moved sections are final only after {@link #layout()})} */
    public List<Section> sections() {
        List<Section> out = new ArrayList<>(sections.size());
        for (Entry e : sections) {
            out.add(e.header);
        }
        return out;
    }

    /**
     * The header of a section as it is now.
     *
     * @param index the section's index
     * @return its header
     */
    public Section section(int index) {
        return entry(index).header;
    }

    /**
     * The first section with this name.
     *
     * @param sectionName the name
     * @return its header as it is now, or empty
     */
    public java.util.Optional<Section> section(String sectionName) {
        for (Entry e : sections) {
            if (e.name.equals(sectionName)) {
                return java.util.Optional.of(e.header);
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * Replaces the header of section {@code s.index()} (name, flags, address, link, info, ...). The
     * offset and size of a section whose contents were replaced are the editor's; for other
     * sections they are taken as given.
     *
     * @param s the new header
     */
    public void setSection(Section s) {
        Entry e = entry(s.index());
        if (!e.name.equals(s.name())) {
            e.name = s.name();
            e.nameOffset = -1;
        }
        if (e.contents != null) {
            s = withPlacement(s, e.header.offset(), e.isNobits() ? s.size() : e.length);
        }
        e.header = s;
    }

    /**
     * The current bytes of a section.
     *
     * @param index the section's index
     * @return a copy of them
     */
    public byte[] contents(int index) {
        Entry e = entry(index);
        if (e.contents != null) {
            return Arrays.copyOf(e.contents, e.length);
        }
        long size = e.header.fileSize();
        return size == 0 ? new byte[0] : Arrays.copyOfRange(image, (int) e.header.offset(), (int) (e.header.offset() + size));
    }

    /**
     * Replaces a section's contents. Same size: written in place. Other sizes: the section moves
     * to the end of the file ({@link #toBytes()} assigns the offset). A NOBITS section keeps no bytes.
     *
     * @param index the section's index
     * @param data the new contents (copied)
     */
    public void setContents(int index, byte[] data) {
        Entry e = entry(index);
        if (e.header.isNobits()) {
            throw new IllegalArgumentException("section [" + index + "] " + e.name + " is NOBITS and holds no bytes");
        }
        if (e.header.type() == Section.SHT_NULL && index < originalShCount) {
            // An inactive header has no bytes in the file, so the reader never checked its offset and
            // size: a forged .eh_frame or .symtab of type NULL sent the same-size write below past the
            // end of the image (found by session 8's fuzz run of patch).
            throw new ElfFormatException(name, (long) originalShoff + (long) index * Section.HEADER_SIZE + 4,
                    "section [" + index + "] " + e.name + " has type NULL (no contents in the file), but it must be rewritten");
        }
        if (e.contents == null && data.length == e.header.size()) {
            // An empty section's offset was never checked (it has no bytes): nothing to write there.
            if (data.length > 0) {
                System.arraycopy(data, 0, writableImage(), (int) e.header.offset(), data.length);
            }
            return;
        }
        e.contents = data.clone();
        e.length = data.length;
        e.header = withPlacement(e.header, e.header.offset(), data.length);
    }

    /**
     * Overwrites file bytes in place (e.g. instructions inside .text); never changes the size.
     *
     * @param fileOffset where the bytes go in the file
     * @param data the bytes
     */
    public void patch(long fileOffset, byte[] data) {
        if (fileOffset < 0 || fileOffset > image.length || data.length > image.length - fileOffset) {
            throw new IllegalArgumentException("patch of " + data.length + " bytes at 0x" + Long.toHexString(fileOffset)
                    + " is outside the file (" + image.length + " bytes)");
        }
        System.arraycopy(data, 0, writableImage(), (int) fileOffset, data.length);
    }

    /**
     * Adds a section at the end of the section header table and returns its index. Its contents
     * go after the existing ones; NOBITS sections take {@code data.length} as their size and no bytes.
     *
     * @param sectionName the name (added to the section name string table)
     * @param type sh_type
     * @param flags sh_flags
     * @param address sh_addr
     * @param alignment sh_addralign (a power of two, or 0)
     * @param entrySize sh_entsize
     * @param link sh_link
     * @param info sh_info
     * @param data the contents (copied)
     * @return the new section's index
     */
    public int addSection(String sectionName, int type, long flags, long address, long alignment, long entrySize,
                          int link, int info, byte[] data) {
        if (sections.isEmpty()) {
            throw new ElfFormatException(name, 60, "no section header table (e_shnum 0) to add a section to");
        }
        if (alignment < 0 || (alignment & (alignment - 1)) != 0) {
            throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
        }
        if (link < 0 || link >= sections.size() + 1 || info < 0) {
            throw new IllegalArgumentException("sh_link " + link + " is out of range");
        }
        int index = sections.size();
        Section s = new Section(index, sectionName, type, flags, address, 0, data.length, link, info, alignment, entrySize);
        sections.add(new Entry(sectionName, -1, s, type == Section.SHT_NOBITS ? new byte[0] : data.clone()));
        return index;
    }

    /**
     * Adds a SHT_NOTE section holding one note (4-byte aligned; allocated when {@code flags} says so).
     *
     * @param sectionName the section's name
     * @param owner the note's owner ("GNU", ...)
     * @param type the note's type
     * @param descriptor the note's descriptor
     * @param flags sh_flags
     * @param address sh_addr
     * @return the new section's index
     */
    public int addNote(String sectionName, String owner, int type, byte[] descriptor, long flags, long address) {
        return addSection(sectionName, Section.SHT_NOTE, flags, address, 4, 0, 0, 0, noteBytes(owner, type, descriptor));
    }

    /** The bytes of one note entry: namesz, descsz, type, owner + NUL padded to 4, descriptor padded to 4. */
    static byte[] noteBytes(String owner, int type, byte[] descriptor) {
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        int nameSize = ownerBytes.length + 1;
        int size = 12 + align4(nameSize) + align4(descriptor.length);
        byte[] out = new byte[size];
        Le.putU32(out, 0, nameSize);
        Le.putU32(out, 4, descriptor.length);
        Le.putU32(out, 8, type);
        System.arraycopy(ownerBytes, 0, out, 12, ownerBytes.length);
        System.arraycopy(descriptor, 0, out, 12 + align4(nameSize), descriptor.length);
        return out;
    }

    /** {@return the program headers as they are now} */
    public List<Segment> segments() {
        return List.copyOf(segments);
    }

    /**
     * Replaces program header {@code s.index()}.
     *
     * @param s the new program header
     */
    public void setSegment(Segment s) {
        if (s.index() < 0 || s.index() >= segments.size()) {
            throw new IllegalArgumentException("no segment [" + s.index() + "]");
        }
        segments.set(s.index(), s);
    }

    /**
     * Appends a program header and returns its index. When the table outgrows its slot it moves
     * to the end of the file (or to {@link #setProgramHeaderOffset}); mapping it is the caller's job.
     *
     * @param s the program header (its index is ignored)
     * @return its index
     */
    public int addSegment(Segment s) {
        int index = segments.size();
        segments.add(new Segment(index, s.type(), s.flags(), s.offset(), s.virtualAddress(), s.physicalAddress(),
                s.fileSize(), s.memorySize(), s.alignment()));
        return index;
    }

    /**
     * Puts the program header table at a file offset (e.g. inside a section the caller reserved for it).
     *
     * @param offset the file offset
     */
    public void setProgramHeaderOffset(long offset) {
        this.programHeaderOffset = offset;
    }

    /**
     * Makes segment {@code segmentIndex} cover the given sections (in address order): at layout
     * its offset, addresses, file size and memory size are computed from theirs; its type, flags
     * and alignment stay as set. Use it for a new PT_LOAD over new sections, or to turn an
     * existing entry (e.g. PT_GNU_STACK) into one without growing the program header table.
     *
     * @param segmentIndex the program header's index
     * @param sectionIndices the allocated sections it covers
     */
    public void bindSegment(int segmentIndex, int... sectionIndices) {
        if (segmentIndex < 0 || segmentIndex >= segments.size()) {
            throw new IllegalArgumentException("no segment [" + segmentIndex + "]");
        }
        if (sectionIndices.length == 0) {
            throw new IllegalArgumentException("a segment must cover at least one section");
        }
        for (int i : sectionIndices) {
            if (!entry(i).header.isAllocated()) {
                throw new IllegalArgumentException("section [" + i + "] " + entry(i).name + " is not allocated");
            }
        }
        segmentBindings.put(segmentIndex, sectionIndices.clone());
    }

    /**
     * The load base: p_vaddr - p_offset of the PT_LOAD that maps the lowest file offset (for a
     * non-PIE executable the address of the ELF header). Loaders compute the program header
     * table's address from it (QEMU: the smallest p_vaddr - p_offset of all PT_LOADs + e_phoff), so
     * a new PT_LOAD must not map its bytes below it: its p_vaddr - p_offset must stay >= the base.
     */
    long loadBase() {
        Segment first = null;
        for (Segment s : segments) {
            if (s.isLoad() && (first == null || Long.compareUnsigned(s.offset(), first.offset()) < 0)) {
                first = s;
            }
        }
        return first == null ? 0 : first.virtualAddress() - first.offset();
    }

    /**
     * An address for new allocated sections: above every segment's memory, and far enough above
     * the load base that contents appended to the file (up to {@code reserve} more bytes) keep
     * p_vaddr - p_offset &gt;= the load base. Aligned to 2 MiB, like BOLT's new segments.
     *
     * @param reserve how many more bytes the caller will append
     * @return the address
     */
    public long addressForNewSegments(long reserve) {
        long end = 0;
        for (Segment s : segments) {
            if (s.isLoad()) {
                end = Math.max(end, s.virtualAddress() + s.memorySize());
            }
        }
        // Sections added already (a segment bound to them has no placement before layout).
        for (Entry e : sections) {
            if (e.header.isAllocated()) {
                end = Math.max(end, e.header.address() + e.header.size());
            }
        }
        long fileEnd = image.length;
        for (Entry e : sections) {
            if (e.contents != null) {
                fileEnd += e.length + Math.max(Math.min(e.header.alignment(), MAX_GAP), PAGE_SIZE);
            }
        }
        long needed = loadBase() + fileEnd + reserve + PAGE_SIZE;
        return alignUp(Math.max(end, needed), 0x200000);
    }

    /**
     * Adds a PT_LOAD segment (page-aligned) covering the given allocated sections and returns its
     * index in the editor. The written table keeps PT_LOAD entries sorted by address, so the
     * final index may differ: {@link #layout()} gives the final table.
     *
     * @param flags p_flags (PF_R, PF_W, PF_X)
     * @param sectionIndices the allocated sections it covers
     * @return its index in the editor
     */
    public int addLoadSegment(int flags, int... sectionIndices) {
        int index = addSegment(new Segment(0, Segment.PT_LOAD, flags, 0, 0, 0, 0, 0, PAGE_SIZE));
        bindSegment(index, sectionIndices);
        return index;
    }

    /**
     * Sets symbol {@code s.index()} of a symbol table (name, value, size, ...).
     *
     * @param tableIndex the index of the symbol table's section
     * @param s the symbol
     */
    public void setSymbol(int tableIndex, Symbol s) {
        Entry table = symbolTable(tableIndex);
        long count = sectionLength(table) / Symbol.ENTRY_SIZE;
        if (s.index() < 0 || s.index() >= count) {
            throw new IllegalArgumentException("no symbol " + s.index() + " in " + table.name);
        }
        long at = (long) s.index() * Symbol.ENTRY_SIZE;
        int nameOffset = table.contents != null ? Le.u32(table.contents, at) : Le.u32(image, table.header.offset() + at);
        if (!stringIs(table.header.link(), nameOffset, s.name())) {
            nameOffset = addString(table.header.link(), s.name());
        }
        writeBytes(table, at, symbolBytes(s, nameOffset));
    }

    /**
     * Appends a global or weak symbol to the symbol table in section {@code tableIndex} and
     * returns its index (the table and its string table then move to the end of the file).
     * Local symbols are refused: they must precede the globals, and inserting one would renumber
     * the symbols that relocations refer to.
     *
     * @param tableIndex the index of the symbol table's section
     * @param s the symbol (its index is ignored)
     * @return its index
     */
    public int addSymbol(int tableIndex, Symbol s) {
        Entry table = symbolTable(tableIndex);
        if (s.binding() == Symbol.STB_LOCAL) {
            throw new IllegalArgumentException("cannot append local symbol " + s.name()
                    + ": locals precede globals, and inserting one would renumber referenced symbols");
        }
        for (Entry e : sections) {
            if (e.header.type() == Section.SHT_SYMTAB_SHNDX && e.header.link() == tableIndex) {
                throw new IllegalArgumentException(table.name + " has an extended section index table; appending is not supported");
            }
        }
        int index = (int) (sectionLength(table) / Symbol.ENTRY_SIZE);
        int nameOffset = addString(table.header.link(), s.name());
        append(tableIndex, symbolBytes(s, nameOffset));
        return index;
    }

    /**
     * Replaces the GNU build-id descriptor in place; the new id must have the old id's length.
     *
     * @param id the new descriptor
     */
    public void setBuildId(byte[] id) {
        ElfFile current = ElfFile.wrap(image, name); // read-only use: no copy of the image
        for (Note n : current.notes()) {
            if (n.type() == Note.NT_GNU_BUILD_ID && n.owner().equals("GNU")) {
                if (n.descriptor().length != id.length) {
                    throw new IllegalArgumentException("build-id of " + id.length + " bytes does not replace one of "
                            + n.descriptor().length + " bytes");
                }
                long nameSize = Le.u32L(image, n.offset());
                long at = n.offset() + 12 + ((nameSize + 3) & -4);
                patch(at, id);
                for (Entry e : sections) {
                    long from = movedFrom(e);
                    if (e.contents != null && e.header.type() == Section.SHT_NOTE && from >= 0 && from <= at
                            && at + id.length <= from + e.length) {
                        System.arraycopy(id, 0, e.contents, (int) (at - from), id.length); // the note moved
                    }
                }
                return;
            }
        }
        throw new IllegalArgumentException(name + " has no GNU build-id note");
    }

    private Entry symbolTable(int tableIndex) {
        Entry table = entry(tableIndex);
        if (table.header.type() != Section.SHT_SYMTAB && table.header.type() != Section.SHT_DYNSYM) {
            throw new IllegalArgumentException("section [" + tableIndex + "] " + table.name + " is not a symbol table");
        }
        return table;
    }

    private static byte[] symbolBytes(Symbol s, int nameOffset) {
        byte[] b = new byte[Symbol.ENTRY_SIZE];
        Le.putU32(b, 0, nameOffset);
        b[4] = (byte) s.info();
        b[5] = (byte) (s.visibility() & 3);
        Le.putU16(b, 6, s.sectionIndex());
        Le.putU64(b, 8, s.value());
        Le.putU64(b, 16, s.size());
        return b;
    }

    private long sectionLength(Entry e) {
        return e.contents != null ? e.length : e.header.fileSize();
    }

    private byte[] readBytes(Entry e, long at, int n) {
        return e.contents != null ? Arrays.copyOfRange(e.contents, (int) at, (int) at + n)
                : Arrays.copyOfRange(image, (int) (e.header.offset() + at), (int) (e.header.offset() + at + n));
    }

    /** The image to write into: a copy of the input's bytes, made on the first write (editors that only add sections need none). */
    private byte[] writableImage() {
        if (imageShared) {
            image = image.clone();
            imageShared = false;
        }
        return image;
    }

    private void writeBytes(Entry e, long at, byte[] data) {
        if (e.contents != null) {
            System.arraycopy(data, 0, e.contents, (int) at, data.length);
        } else {
            System.arraycopy(data, 0, writableImage(), (int) (e.header.offset() + at), data.length);
        }
    }

    /** Appends bytes to a section; it then moves to the end of the file. Amortised O(length). */
    private void append(int index, byte[] data) {
        Entry e = entry(index);
        if (e.contents == null) {
            e.contents = contents(index);
            e.length = e.contents.length;
        }
        if (e.length + data.length > e.contents.length) {
            e.contents = Arrays.copyOf(e.contents, Math.max(e.length + data.length, e.contents.length * 2 + 64));
        }
        System.arraycopy(data, 0, e.contents, e.length, data.length);
        e.length += data.length;
        e.header = withPlacement(e.header, e.header.offset(), e.length);
    }

    /** {@code stringAt(tableIndex, offset).equals(value)}, without making the string when it is ASCII (symbol names are). */
    private boolean stringIs(int tableIndex, int offset, String value) {
        Entry e = entry(tableIndex);
        long size = sectionLength(e);
        byte[] data = e.contents != null ? e.contents : image;
        long base = e.contents != null ? 0 : e.header.offset();
        int n = value.length();
        if (offset < 0 || offset + (long) n >= size) {
            return stringAt(tableIndex, offset).equals(value);
        }
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c == 0 || c >= 0x80) {
                return stringAt(tableIndex, offset).equals(value);
            }
            if (data[(int) (base + offset + i)] != c) {
                return false;
            }
        }
        return data[(int) (base + offset + n)] == 0;
    }

    private String stringAt(int tableIndex, int offset) {
        Entry e = entry(tableIndex);
        long size = sectionLength(e);
        byte[] data = e.contents != null ? e.contents : image;
        long base = e.contents != null ? 0 : e.header.offset();
        int from = offset;
        int at = from;
        while (at < size && data[(int) (base + at)] != 0) {
            at++;
        }
        return at >= size ? "" : new String(data, (int) (base + from), at - from, StandardCharsets.UTF_8);
    }

    /** Appends a string to a string table (once per editor) and returns its offset. */
    private int addString(int tableIndex, String value) {
        Entry e = entry(tableIndex);
        if (e.header.type() != Section.SHT_STRTAB) {
            throw new IllegalArgumentException("section [" + tableIndex + "] " + e.name + " is not a string table");
        }
        if (value.isEmpty()) {
            return 0;
        }
        java.util.Map<String, Integer> added = appendedStrings.computeIfAbsent(tableIndex, k -> new java.util.HashMap<>());
        Integer known = added.get(value);
        if (known != null) {
            return known;
        }
        int offset = (int) sectionLength(e);
        append(tableIndex, (value + "\0").getBytes(StandardCharsets.UTF_8));
        added.put(value, offset);
        return offset;
    }

    /** {@return where {@link #toBytes()} puts everything} */
    public Layout layout() {
        return build().layout;
    }

    /** {@return the edited file; the unmodified file when nothing was edited} */
    public byte[] toBytes() {
        return build().bytes;
    }

    /**
     * Writes {@link #toBytes()} atomically.
     *
     * @param out the output file
     */
    public void write(Path out) {
        AtomicFiles.write(out, toBytes());
    }

    private record Built(byte[] bytes, Layout layout) {}

    private Built build() {
        int count = sections.size();
        List<Section> placed = new ArrayList<>(count);
        for (Entry e : sections) {
            placed.add(e.header);
        }
        // New names: extend the section name string table (it then moves to the end).
        byte[] names = null;
        int shstrndx = count == 0 ? 0 : (header.shstrndx() == Section.SHN_XINDEX ? sections.get(0).header.link() : header.shstrndx());
        int[] nameOffsets = new int[count];
        boolean newNames = false;
        for (int i = 0; i < count; i++) {
            nameOffsets[i] = sections.get(i).nameOffset;
            newNames |= nameOffsets[i] < 0;
        }
        if (newNames) {
            if (shstrndx == 0) {
                throw new ElfFormatException(name, 62, "no section name string table (e_shstrndx 0) for the new section names");
            }
            ByteArrayOutputStream table = new ByteArrayOutputStream();
            byte[] old = contents(shstrndx);
            table.writeBytes(old);
            for (int i = 0; i < count; i++) {
                if (nameOffsets[i] < 0) {
                    byte[] n = (sections.get(i).name + "\0").getBytes(StandardCharsets.UTF_8);
                    byte[] sofar = table.toByteArray();
                    int found = indexOf(sofar, n);
                    if (found >= 0) {
                        nameOffsets[i] = found;
                    } else {
                        nameOffsets[i] = sofar.length;
                        table.writeBytes(n);
                    }
                }
            }
            names = table.toByteArray();
            Section s = placed.get(shstrndx);
            placed.set(shstrndx, withPlacement(s, s.offset(), names.length));
        }

        boolean moved = newNames;
        for (Entry e : sections) {
            moved |= e.contents != null;
        }
        boolean growsInPlace = segments.size() > originalPhnum && programHeaderOffset < 0 && fitsInPlace(segments.size());
        boolean phMoves = segments.size() > originalPhnum && !growsInPlace || programHeaderOffset >= 0;
        boolean restructured = moved || phMoves || count != originalShCount;

        GatherBuffer out = new GatherBuffer();
        long shoff = header.shoff();
        long phoff = segments.isEmpty() ? header.phoff() : originalPhoff;
        List<Segment> finalSegments;
        if (!restructured) {
            out.write(image, 0, image.length);
            finalSegments = bindSegments(placed);
        } else {
            // The input's bytes stay where they are up to its first unallocated section that changed
            // (and at least up to everything the loader reads); the unallocated sections after that
            // are laid out again, so a table that grew leaves no hole where it was.
            // An input segment bound to sections grows over new ones (a second pass's code after the
            // first's): every unallocated section after the mapped bytes moves behind them, so the
            // segment's bytes stay contiguous in the file.
            boolean inputSegmentGrows = segmentBindings.keySet().stream().anyMatch(i -> i < originalPhnum);
            long kept = inputSegmentGrows ? keptEnd() : Math.max(keptEnd(), firstChangedUnallocated(shstrndx, names != null));
            out.write(image, 0, (int) kept);
            // New and changed allocated contents in address order (a segment's sections then lie in the
            // file as in memory), a moved program header table, then unallocated contents in section
            // order: the next pass finds every unallocated section after the mapped bytes.
            List<Integer> allocated = new ArrayList<>();
            List<Integer> unallocated = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Entry e = sections.get(i);
                Section s = placed.get(i);
                boolean changed = e.contents != null || i == shstrndx && names != null;
                if (s.isAllocated() && changed) {
                    allocated.add(i);
                } else if (!s.isAllocated() && (changed || !e.isNobits() && s.offset() >= kept)) {
                    unallocated.add(i);
                }
            }
            allocated.sort((x, y) -> Long.compareUnsigned(placed.get(x).address(), placed.get(y).address()));
            placeContents(out, allocated, placed, shstrndx, names);
            finalSegments = bindSegments(placed);
            if (phMoves) {
                if (programHeaderOffset >= 0) {
                    phoff = programHeaderOffset;
                } else if (finalSegments.stream().anyMatch(Segment::isLoad)) {
                    phoff = placeMappedProgramHeaders(out, finalSegments);
                } else {
                    phoff = alignUp(out.size(), 8);
                    out.zerosTo(phoff + (long) finalSegments.size() * Segment.HEADER_SIZE);
                }
            }
            placeContents(out, unallocated, placed, shstrndx, names);
            if (count > 0) {
                shoff = alignUp(out.size(), 8);
                out.zerosTo(shoff + (long) count * Section.HEADER_SIZE);
            }
        }
        byte[] bytes = out.toByteArray();
        if (phMoves || !segmentBindings.isEmpty()) {
            sortLoadSegments(finalSegments);
        }
        if (growsInPlace) {
            long size = (long) finalSegments.size() * Segment.HEADER_SIZE;
            for (int i = 0; i < finalSegments.size(); i++) {
                Segment s = finalSegments.get(i);
                if (s.type() == Segment.PT_PHDR) {
                    finalSegments.set(i, new Segment(i, s.type(), s.flags(), s.offset(), s.virtualAddress(),
                            s.physicalAddress(), size, size, s.alignment()));
                }
            }
        }
        for (Entry e : sections) {
            // The old bytes of a moved note (e.g. one moved out of the way of a growing program header table).
            Section old = e.header;
            if (e.contents != null && old.type() == Section.SHT_NOTE && old.isAllocated() && movedFrom(e) >= 0) {
                Arrays.fill(bytes, (int) movedFrom(e), (int) (movedFrom(e) + e.length), (byte) 0);
            }
        }
        if (!phMoves && !segments.isEmpty() && originalPhnum > 0) {
            // The old slot: clear it, then re-serialise (a smaller table leaves zeros behind).
            Arrays.fill(bytes, (int) originalPhoff, (int) (originalPhoff + (long) originalPhnum * Segment.HEADER_SIZE), (byte) 0);
        }
        if (count > 0 && !restructured) {
            Arrays.fill(bytes, originalShoff, originalShoff + count * Section.HEADER_SIZE, (byte) 0);
        }
        if (phoff + (long) finalSegments.size() * Segment.HEADER_SIZE > bytes.length) {
            throw new ElfFormatException(name, 32, "program header table at 0x" + Long.toHexString(phoff) + " does not fit the file");
        }
        writeSegments(bytes, phoff, finalSegments);
        writeSections(bytes, shoff, placed, nameOffsets, finalSegments.size());
        writeHeader(bytes, phoff, shoff, count, shstrndx, finalSegments.size());
        return new Built(bytes, new Layout(phoff, count > 0 ? shoff : 0, List.copyOf(placed), List.copyOf(finalSegments),
                bytes.length));
    }

    /**
     * Appends the contents of sections {@code indices} in that order (changed ones from their
     * new bytes, the others from the image), each at its alignment and, when allocated, at an
     * offset congruent to its address, and records where each went in {@code placed}.
     */
    private void placeContents(GatherBuffer out, List<Integer> indices, List<Section> placed, int shstrndx, byte[] names) {
        for (int i : indices) {
            Entry e = sections.get(i);
            Section s = placed.get(i);
            byte[] data;
            int from;
            int dataLength;
            if (i == shstrndx && names != null) {
                data = names;
                from = 0;
                dataLength = names.length;
            } else if (e.contents != null) {
                data = e.contents;
                from = 0;
                dataLength = e.length;
            } else {
                data = image;
                from = (int) Math.min(s.offset(), image.length);
                dataLength = (int) Math.min(s.fileSize(), image.length - from);
            }
            long at = out.size();
            if (s.type() != Section.SHT_NOBITS) {
                at = alignUp(at, fileAlignment(e, s));
            }
            if (at < out.size() || at - out.size() > MAX_GAP) {
                // A forged sh_addralign (2^62) would pad gigabytes of zeros before the section.
                throw new ElfFormatException(name, (long) originalShoff + (long) i * Section.HEADER_SIZE + 48, "section ["
                        + i + "] alignment 0x" + Long.toHexString(s.alignment()) + " would pad more than "
                        + (MAX_GAP >> 20) + " MiB of zeros");
            }
            if (s.isAllocated() && s.address() != 0) {
                // Also for NOBITS: the segment over it needs p_offset congruent to p_vaddr, inside the file.
                at += Math.floorMod(s.address() - at, PAGE_SIZE);
                if (s.type() == Section.SHT_NOBITS && at > out.size() && at >= PAGE_SIZE && inZeroTailOfFixedSegment(s)) {
                    // No segment's offset comes from it: a nominal offset without padding, so that new
                    // sections after it (a second pass's code growing its segment) stay where they belong.
                    at -= PAGE_SIZE;
                } else {
                    out.zerosTo(at);
                }
            }
            if (s.type() != Section.SHT_NOBITS) {
                out.zerosTo(at);
                out.write(data, from, dataLength);
            }
            placed.set(i, withPlacement(s, at, s.type() == Section.SHT_NOBITS ? s.size() : dataLength));
        }
    }

    /**
     * Whether a NOBITS section lies in the zero-filled tail (past {@code p_filesz}) of a PT_LOAD whose
     * placement is set, not computed from bound sections (a R W segment grown over a data area).
     */
    private boolean inZeroTailOfFixedSegment(Section s) {
        for (Segment g : segments) {
            if (g.isLoad() && !segmentBindings.containsKey(g.index())
                    && Long.compareUnsigned(s.address(), g.virtualAddress() + g.fileSize()) >= 0
                    && Long.compareUnsigned(s.address() + s.size(), g.virtualAddress() + g.memorySize()) <= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The input offset of the first unallocated section of the input whose contents changed, or,
     * if none did, the end of its sections (the old section header table is dropped when it is
     * the last thing in the file).
     */
    private long firstChangedUnallocated(int shstrndx, boolean newNames) {
        long first = originalShCount > 0 && originalShoff + (long) originalShCount * Section.HEADER_SIZE == image.length
                ? originalShoff : image.length;
        for (int i = 0; i < originalShCount; i++) {
            Entry e = sections.get(i);
            boolean changed = e.contents != null || i == shstrndx && newNames;
            if (changed && !e.header.isAllocated() && !e.isNobits()) {
                first = Math.min(first, e.header.offset());
            }
        }
        return first;
    }

    /**
     * The end of the input's bytes that stay in place when the file is laid out again: the ELF
     * header, the program header table, every segment's file bytes, allocated sections that keep
     * their contents, and any section that starts before that end (so none is cut). Unallocated
     * sections after it move.
     */
    private long keptEnd() {
        long end = Math.min(image.length, ElfHeader.SIZE);
        if (originalPhnum > 0) {
            end = Math.max(end, originalPhoff + (long) originalPhnum * Segment.HEADER_SIZE);
        }
        for (Segment g : segments) {
            if (g.fileSize() > 0) {
                end = Math.max(end, g.offset() + g.fileSize());
            }
        }
        List<Section> unchanged = new ArrayList<>();
        for (Entry e : sections) {
            if (e.contents == null && !e.isNobits() && e.header.fileSize() > 0) {
                unchanged.add(e.header);
                if (e.header.isAllocated()) {
                    end = Math.max(end, e.header.offset() + e.header.fileSize());
                }
            }
        }
        unchanged.sort((x, y) -> Long.compareUnsigned(x.offset(), y.offset()));
        for (Section s : unchanged) {
            if (s.offset() < end) {
                end = Math.max(end, s.offset() + s.fileSize());
            }
        }
        return Math.min(end, image.length);
    }

    /**
     * Whether e_phnum is PN_XNUM with the count in section 0's sh_info: when the count needs it, or
     * when the input used it (an unedited file is written back as it was).
     */
    private boolean extendedProgramHeaderCount(int segmentCount, int sectionCount) {
        return segmentCount >= ElfHeader.PN_XNUM || header.phnum() == ElfHeader.PN_XNUM && sectionCount > 0;
    }

    private void writeHeader(byte[] bytes, long phoff, long shoff, int count, int shstrndx, int segmentCount) {
        ElfHeader h = header;
        int phnum = extendedProgramHeaderCount(segmentCount, count) ? ElfHeader.PN_XNUM : segmentCount;
        int shnum = count >= Section.SHN_LORESERVE ? 0 : count;
        int strndx = shstrndx >= Section.SHN_LORESERVE ? Section.SHN_XINDEX : shstrndx;
        ElfHeader out = new ElfHeader(h.elfClass(), h.dataEncoding(), h.identVersion(), h.osAbi(), h.abiVersion(),
                h.type(), h.machine(), h.version(), h.entry(), segmentCount == 0 ? h.phoff() : phoff,
                count == 0 ? h.shoff() : shoff, h.flags(), h.ehsize(),
                segmentCount == 0 ? h.phentsize() : Segment.HEADER_SIZE, phnum,
                count == 0 ? h.shentsize() : Section.HEADER_SIZE, shnum, strndx);
        out.writeTo(bytes, 0);
    }

    /**
     * Whether a table of {@code count} entries fits where the old one is: the bytes after it are
     * no section's (sections moved away do not count), and a PT_LOAD that mapped the old table maps
     * them too. Then it grows in place, where every loader and GNU strip expect it.
     */
    private boolean fitsInPlace(int count) {
        if (!tableMayGrowTo(count)) {
            return false;
        }
        long end = originalPhoff + (long) count * Segment.HEADER_SIZE;
        for (int i = 1; i < sections.size(); i++) {
            Entry e = sections.get(i);
            long at = e.contents == null ? e.header.offset() : -1;
            if (i < originalShCount && e.contents == null && !e.isNobits() && e.header.size() > 0 && at < end
                    && originalPhoff < at + e.header.size()) {
                return false;
            }
        }
        return true;
    }

    /** Whether a table of {@code count} entries in place stays in the file, off the section header table, and mapped. */
    private boolean tableMayGrowTo(int count) {
        if (originalPhnum == 0 || sections.isEmpty()) {
            return false;
        }
        long end = originalPhoff + (long) count * Segment.HEADER_SIZE;
        long oldEnd = originalPhoff + (long) originalPhnum * Segment.HEADER_SIZE;
        if (end > image.length || originalShCount > 0 && originalShoff < end && originalPhoff < originalShoff
                + (long) originalShCount * Section.HEADER_SIZE) {
            return false;
        }
        for (Segment s : segments.subList(0, originalPhnum)) {
            if (s.isLoad() && s.offset() <= originalPhoff && oldEnd <= s.offset() + s.fileSize()
                    && end > s.offset() + s.fileSize()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Gives an allocated section a new address; its bytes move to the end of the file (congruent
     * to the address). The caller maps it with a segment ({@link #bindSegment}).
     *
     * @param index the section's index
     * @param address its new address
     */
    public void moveSection(int index, long address) {
        Entry e = entry(index);
        if (!e.header.isAllocated() || e.isNobits()) {
            throw new IllegalArgumentException("section [" + index + "] " + e.name + " is not allocated with contents");
        }
        if (e.contents == null) {
            e.contents = contents(index);
            e.length = e.contents.length;
        }
        Section s = e.header;
        e.header = new Section(s.index(), s.name(), s.type(), s.flags(), address, s.offset(), e.length, s.link(), s.info(),
                s.alignment(), s.entrySize());
    }

    /**
     * Makes room for the program header table to grow in place to {@code count} entries, where
     * every loader and GNU strip expect it, when only allocated notes are in the way (as in static
     * executables, where {@code .note.gnu.build-id} and {@code .note.ABI-tag} follow the table), the
     * interpreter's path and notes (as in PIEs, where {@code .interp} comes first), or the symbol hash
     * table the loader finds through {@code .dynamic} (as in shared libraries, where {@code .gnu.hash}
     * follows the notes): they move to {@code address} and on (each aligned), their PT_NOTE and
     * PT_INTERP follow them, so does the hash table's {@code DT_GNU_HASH} or {@code DT_HASH}, and the
     * caller maps the returned sections with a PT_LOAD. Nothing moves when the table fits already or
     * when something else is in the way (the table then moves at layout).
     *
     * @param count the number of program headers the table will have
     * @param address where the notes may go (free addresses, in a segment the caller adds)
     * @return the indices of the moved notes, in address order (empty when none moved)
     */
    public int[] makeRoomForProgramHeaders(int count, long address) {
        if (fitsInPlace(count)) {
            return new int[0];
        }
        List<Integer> notes = movableInTheWay(count);
        if (notes.isEmpty() || !tableMayGrowTo(count)) {
            return new int[0];
        }
        List<Integer> noteSegments = new ArrayList<>();
        for (Segment g : segments) {
            for (int i : notes) {
                Section s = entry(i).header;
                if ((g.type() == Segment.PT_NOTE || g.type() == Segment.PT_INTERP) && s.offset() >= g.offset()
                        && s.offset() < g.offset() + g.fileSize() && !noteSegments.contains(g.index())) {
                    noteSegments.add(g.index());
                }
            }
        }
        long at = address;
        for (int i : notes) {
            Section s = entry(i).header;
            at = alignUp(at, Math.max(1, s.alignment()));
            int tagAt = dynamicEntryNaming(s);
            moveSection(i, at);
            if (tagAt >= 0) {
                int dynamic = dynamicSection();
                byte[] d = contents(dynamic);
                Le.putU64(d, tagAt + 8, at);
                setContents(dynamic, d); // same size: in place
            }
            at += s.size();
        }
        if (!fitsInPlace(count)) {
            throw new ElfFormatException(name, 32, "the program header table does not fit after moving the notes");
        }
        int[] moved = notes.stream().mapToInt(Integer::intValue).toArray();
        for (int g : noteSegments) {
            List<Integer> covered = new ArrayList<>();
            Segment old = segments.get(g);
            for (int i : moved) {
                long from = movedFrom(entry(i));
                if (from >= old.offset() && from < old.offset() + old.fileSize()) {
                    covered.add(i);
                }
            }
            bindSegment(g, covered.stream().mapToInt(Integer::intValue).toArray());
        }
        return moved;
    }

    /**
     * The sections in the way of a table of {@code count} entries that may move, in file order: allocated
     * notes (with every other note of a PT_NOTE that covers one, which moves whole) and the program
     * interpreter's path (the section a PT_INTERP covers, as after a PIE's table); empty if anything else
     * is in the way.
     */
    private List<Integer> movableInTheWay(int count) {
        long end = originalPhoff + (long) count * Segment.HEADER_SIZE;
        List<Integer> notes = new ArrayList<>();
        for (int i = 1; i < sections.size(); i++) {
            Section s = entry(i).header;
            if (entry(i).contents == null && !s.isNobits() && s.size() > 0 && s.offset() < end
                    && originalPhoff < s.offset() + s.size()) {
                if (!(s.type() == Section.SHT_NOTE && s.isAllocated()) && coveringSegment(s, Segment.PT_INTERP) == null
                        && dynamicEntryNaming(s) < 0) {
                    return List.of();
                }
                notes.add(i);
            }
        }
        for (Segment g : segments) {
            if (g.type() != Segment.PT_NOTE) {
                continue;
            }
            List<Integer> group = new ArrayList<>();
            boolean touches = false;
            for (Entry e : sections) {
                Section s = e.header;
                if (s.type() == Section.SHT_NOTE && s.offset() >= g.offset() && s.offset() + s.size() <= g.offset() + g.fileSize()) {
                    touches |= notes.contains(s.index());
                    group.add(s.index());
                }
            }
            if (touches) {
                for (int i : group) {
                    Entry e = entry(i);
                    if (!e.header.isAllocated() || e.contents != null) {
                        return List.of();
                    }
                    if (!notes.contains(i)) {
                        notes.add(i);
                    }
                }
            }
        }
        notes.sort((x, y) -> Long.compare(entry(x).header.offset(), entry(y).header.offset()));
        return List.copyOf(notes);
    }

    /**
     * Where in {@code .dynamic} the entry is that gives the loader {@code s} as its symbol hash table
     * ({@code DT_HASH} for SHT_HASH, {@code DT_GNU_HASH} for SHT_GNU_HASH, naming its address), or -1.
     * Nothing else refers to a hash table by address, so such a table may move with its entry.
     */
    private int dynamicEntryNaming(Section s) {
        long tag = s.type() == Section.SHT_HASH ? DT_HASH : s.type() == Section.SHT_GNU_HASH ? DT_GNU_HASH : -1;
        int dynamic = dynamicSection();
        if (tag < 0 || dynamic < 0 || !s.isAllocated() || (s.flags() & Section.SHF_WRITE) != 0 || s.isExecutable()) {
            return -1;
        }
        byte[] d = contents(dynamic);
        for (int at = 0; at + DYNAMIC_ENTRY_SIZE <= d.length; at += DYNAMIC_ENTRY_SIZE) {
            long t = Le.u64(d, at);
            if (t == DT_NULL) {
                break;
            }
            if (t == tag && Le.u64(d, at + 8) == s.address()) {
                return at;
            }
        }
        return -1;
    }

    /** The index of the one SHT_DYNAMIC section with contents, or -1. */
    private int dynamicSection() {
        int found = -1;
        for (int i = 1; i < sections.size(); i++) {
            Section s = entry(i).header;
            if (s.type() == Section.SHT_DYNAMIC && !s.isNobits()) {
                if (found >= 0) {
                    return -1; // two: which one the loader reads is PT_DYNAMIC's business; move nothing
                }
                found = i;
            }
        }
        return found;
    }

    /** The segment of {@code type} whose file bytes are exactly {@code s}'s, or null. */
    private Segment coveringSegment(Section s, int type) {
        for (Segment g : segments) {
            if (g.type() == type && g.offset() == s.offset() && g.fileSize() == s.size() && s.isAllocated()) {
                return g;
            }
        }
        return null;
    }

    /** The file offset a moved section had in the input (its header keeps it until layout), or -1 for a new one. */
    /**
     * The file-offset alignment a section gets: its sh_addralign, but for a section of the input no more
     * than the input's own offset of it honours. A 2 KB input can claim a 64 MiB alignment for
     * {@code .symtab} without placing it so; padding the output to the claim would write 64 MiB of zeros
     * (found by the fuzzer). Inputs that honour their alignments are laid out as before.
     */
    private long fileAlignment(Entry e, Section s) {
        long alignment = Math.max(1, s.alignment());
        long from = movedFrom(e);
        if (from == 0) {
            return Math.min(alignment, PAGE_SIZE); // at offset 0 any claim holds: honour no more than a page
        }
        return from > 0 && from % alignment != 0 ? Long.lowestOneBit(from) : alignment;
    }

    private long movedFrom(Entry e) {
        return e.header.index() < originalShCount ? e.header.offset() : -1;
    }

    /**
     * Puts the program header table, grown by one PT_LOAD that maps it, at a page-aligned offset X
     * whose address (load base + X) is free. Loaders find the table at load base + e_phoff (QEMU)
     * or through the PT_LOAD that holds e_phoff (Linux); both then land on it. PT_PHDR follows.
     */
    private long placeMappedProgramHeaders(GatherBuffer out, List<Segment> segs) {
        Segment first = null;
        for (Segment s : segs) {
            if (s.isLoad() && (first == null || Long.compareUnsigned(s.offset(), first.offset()) < 0)) {
                first = s;
            }
        }
        long base = first.virtualAddress() - first.offset();
        int n = segs.size() + 1;
        long size = (long) n * Segment.HEADER_SIZE;
        long x = alignUp(out.size(), PAGE_SIZE);
        boolean clash = true;
        for (int pass = 0; pass <= n && clash; pass++) {
            clash = false;
            for (Segment s : segs) {
                if (s.isLoad() && base + x < s.virtualAddress() + s.memorySize() && s.virtualAddress() < base + x + size) {
                    x = alignUp(s.virtualAddress() + s.memorySize() - base, PAGE_SIZE);
                    clash = true;
                }
            }
        }
        if (clash || x - out.size() > MAX_GAP) {
            throw new ElfFormatException(name, 32, "found no free address for the moved program header table"
                    + " (load base 0x" + Long.toHexString(base) + "); place it with setProgramHeaderOffset");
        }
        long explained = explainedZeroMemory(segs);
        if (x - out.size() > explained) {
            // The gap is file padding up to the end of memory images: only zeros a section (.bss,
            // .tbss) accounts for are worth writing; a forged p_memsz would grow the output at will.
            throw new ElfFormatException(name, 32, "the moved program header table would follow 0x"
                    + Long.toHexString(x - out.size()) + " bytes of zeros, more than the 0x"
                    + Long.toHexString(explained) + " of memory that no section explains allows"
                    + "; place it with setProgramHeaderOffset");
        }
        out.zerosTo(x + size);
        for (int i = 0; i < segs.size(); i++) {
            Segment s = segs.get(i);
            if (s.type() == Segment.PT_PHDR) {
                segs.set(i, new Segment(i, s.type(), s.flags(), x, base + x, base + x, size, size, s.alignment()));
            }
        }
        segs.add(new Segment(n - 1, Segment.PT_LOAD, Segment.PF_R, x, base + x, base + x, size, size, PAGE_SIZE));
        return x;
    }

    /**
     * The padding a moved program header table may need: the allocated NOBITS sections' memory,
     * plus a page of alignment per loadable segment.
     */
    private long explainedZeroMemory(List<Segment> segs) {
        long bytes = 0;
        for (Entry e : sections) {
            if (e.isNobits() && e.header.isAllocated()) {
                bytes = Math.min(bytes + Math.max(e.header.size(), 0), MAX_GAP);
            }
        }
        for (Segment s : segs) {
            if (s.isLoad()) {
                bytes += PAGE_SIZE;
            }
        }
        return bytes + PAGE_SIZE;
    }

    /**
     * Puts the PT_LOAD entries in ascending address order, as the ELF specification requires and
     * the kernel assumes when it sizes the mapping of a position-independent executable. Only the
     * PT_LOAD slots are permuted; other entries keep their index.
     */
    private static void sortLoadSegments(List<Segment> segs) {
        List<Integer> slots = new ArrayList<>();
        List<Segment> loads = new ArrayList<>();
        for (int i = 0; i < segs.size(); i++) {
            if (segs.get(i).isLoad()) {
                slots.add(i);
                loads.add(segs.get(i));
            }
        }
        loads.sort((x, y) -> Long.compareUnsigned(x.virtualAddress(), y.virtualAddress()));
        for (int k = 0; k < slots.size(); k++) {
            Segment s = loads.get(k);
            int i = slots.get(k);
            segs.set(i, new Segment(i, s.type(), s.flags(), s.offset(), s.virtualAddress(), s.physicalAddress(),
                    s.fileSize(), s.memorySize(), s.alignment()));
        }
    }

    /** The segments with the placement of the bound ones computed from their sections. */
    private List<Segment> bindSegments(List<Section> placed) {
        List<Segment> out = new ArrayList<>(segments);
        for (var binding : segmentBindings.entrySet()) {
            long start = Long.MAX_VALUE;
            long fileStart = 0;
            long fileEnd = 0;
            long memoryEnd = 0;
            for (int i : binding.getValue()) {
                Section s = placed.get(i);
                if (Long.compareUnsigned(s.address(), start) < 0) {
                    start = s.address();
                    fileStart = s.offset();
                }
            }
            for (int i : binding.getValue()) {
                Section s = placed.get(i);
                memoryEnd = Math.max(memoryEnd, s.address() + s.size());
                if (!s.isNobits()) {
                    fileEnd = Math.max(fileEnd, s.address() + s.size());
                }
            }
            Segment old = out.get(binding.getKey());
            long fileSize = Math.max(0, fileEnd - start);
            long base = loadBase();
            if (old.isLoad() && start - fileStart < base) {
                throw new IllegalStateException("segment [" + binding.getKey() + "] at 0x" + Long.toHexString(start)
                        + " lands at file offset 0x" + Long.toHexString(fileStart) + ", which would move the load base 0x"
                        + Long.toHexString(base) + " down and misplace AT_PHDR; use an address >= 0x"
                        + Long.toHexString(alignUp(base + fileStart, PAGE_SIZE)) + " (see addressForNewSegments)");
            }
            out.set(binding.getKey(), new Segment(old.index(), old.type(), old.flags(), fileStart, start, start, fileSize,
                    memoryEnd - start, old.alignment()));
        }
        return out;
    }

    private void writeSegments(byte[] bytes, long phoff, List<Segment> segments) {
        for (Segment s : segments) {
            int at = (int) (phoff + (long) s.index() * Segment.HEADER_SIZE);
            Le.putU32(bytes, at, s.type());
            Le.putU32(bytes, at + 4, s.flags());
            Le.putU64(bytes, at + 8, s.offset());
            Le.putU64(bytes, at + 16, s.virtualAddress());
            Le.putU64(bytes, at + 24, s.physicalAddress());
            Le.putU64(bytes, at + 32, s.fileSize());
            Le.putU64(bytes, at + 40, s.memorySize());
            Le.putU64(bytes, at + 48, s.alignment());
        }
    }

    private void writeSections(byte[] bytes, long shoff, List<Section> placed, int[] nameOffsets, int segmentCount) {
        int count = placed.size();
        for (int i = 0; i < count; i++) {
            Section s = placed.get(i);
            int at = (int) (shoff + (long) i * Section.HEADER_SIZE);
            long size = s.size();
            int link = s.link();
            int info = s.info();
            // Extended numbering lives in section 0.
            if (i == 0 && count >= Section.SHN_LORESERVE) {
                size = count;
            }
            if (i == 0 && extendedProgramHeaderCount(segmentCount, count)) {
                info = segmentCount;
            }
            Le.putU32(bytes, at, nameOffsets[i]);
            Le.putU32(bytes, at + 4, s.type());
            Le.putU64(bytes, at + 8, s.flags());
            Le.putU64(bytes, at + 16, s.address());
            Le.putU64(bytes, at + 24, s.offset());
            Le.putU64(bytes, at + 32, size);
            Le.putU32(bytes, at + 40, link);
            Le.putU32(bytes, at + 44, info);
            Le.putU64(bytes, at + 48, s.alignment());
            Le.putU64(bytes, at + 56, s.entrySize());
        }
    }

    private Entry entry(int index) {
        if (index < 0 || index >= sections.size()) {
            throw new IllegalArgumentException("no section [" + index + "] in " + name);
        }
        return sections.get(index);
    }

    private static Section withPlacement(Section s, long offset, long size) {
        return new Section(s.index(), s.name(), s.type(), s.flags(), s.address(), offset, size, s.link(), s.info(),
                s.alignment(), s.entrySize());
    }

    /** Zeros up to offset {@code to}, a page at a time (byte by byte, padding of megabytes cost tens of ms). */
    private static long alignUp(long v, long alignment) {
        return (v + alignment - 1) & -alignment;
    }

    private static int align4(int n) {
        return (n + 3) & -4;
    }

    /** The first offset where {@code needle} starts in {@code hay}, or -1. */
    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
