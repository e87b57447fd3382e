package dev.splice.elf;

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

    private final String name;
    private final byte[] original;
    private final int originalShoff;
    private final int originalShCount;
    private final long originalPhoff;
    private final int originalPhnum;
    private final byte[] image;
    private ElfHeader header;
    private final List<Entry> sections = new ArrayList<>();
    private final List<Segment> segments;
    private long programHeaderOffset = -1;

    /** One section header being edited; {@code contents} is null while the bytes stay where they are. */
    private static final class Entry {
        String name;
        int nameOffset;
        Section header;
        byte[] contents;

        Entry(String name, int nameOffset, Section header, byte[] contents) {
            this.name = name;
            this.nameOffset = nameOffset;
            this.header = header;
            this.contents = contents;
        }
    }

    /** Where the last {@link #toBytes()} put the tables and each section. */
    public record Layout(long programHeaderOffset, long sectionHeaderOffset, List<Section> sections, int length) {}

    ElfEditor(ElfFile elf) {
        this.name = elf.name();
        this.original = elf.rawBytes();
        this.image = original.clone();
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

    public String name() {
        return name;
    }

    public ElfHeader header() {
        return header;
    }

    /** Replaces the header fields; e_phoff, e_shoff and the counts are recomputed by {@link #toBytes()}. */
    public void setHeader(ElfHeader newHeader) {
        this.header = newHeader;
    }

    public void setEntry(long entry) {
        ElfHeader h = header;
        header = new ElfHeader(h.elfClass(), h.dataEncoding(), h.identVersion(), h.osAbi(), h.abiVersion(), h.type(),
                h.machine(), h.version(), entry, h.phoff(), h.shoff(), h.flags(), h.ehsize(), h.phentsize(), h.phnum(),
                h.shentsize(), h.shnum(), h.shstrndx());
    }

    /** The section headers as they are now (offsets of moved sections are final only after {@link #layout()}). */
    public List<Section> sections() {
        List<Section> out = new ArrayList<>(sections.size());
        for (Entry e : sections) {
            out.add(e.header);
        }
        return out;
    }

    public Section section(int index) {
        return entry(index).header;
    }

    /** The first section with this name. */
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
     */
    public void setSection(Section s) {
        Entry e = entry(s.index());
        if (!e.name.equals(s.name())) {
            e.name = s.name();
            e.nameOffset = -1;
        }
        if (e.contents != null) {
            s = withPlacement(s, e.header.offset(), e.contents.length);
        }
        e.header = s;
    }

    /** The current bytes of a section (a copy). */
    public byte[] contents(int index) {
        Entry e = entry(index);
        if (e.contents != null) {
            return e.contents.clone();
        }
        long size = e.header.fileSize();
        return size == 0 ? new byte[0] : Arrays.copyOfRange(image, (int) e.header.offset(), (int) (e.header.offset() + size));
    }

    /**
     * Replaces a section's contents. Same size: written in place. Other sizes: the section moves
     * to the end of the file ({@link #toBytes()} assigns the offset). A NOBITS section keeps no bytes.
     */
    public void setContents(int index, byte[] data) {
        Entry e = entry(index);
        if (e.header.isNobits()) {
            throw new IllegalArgumentException("section [" + index + "] " + e.name + " is NOBITS and holds no bytes");
        }
        if (e.contents == null && data.length == e.header.size()) {
            System.arraycopy(data, 0, image, (int) e.header.offset(), data.length);
            return;
        }
        e.contents = data.clone();
        e.header = withPlacement(e.header, e.header.offset(), data.length);
    }

    /** Overwrites file bytes in place (e.g. instructions inside .text); never changes the size. */
    public void patch(long fileOffset, byte[] data) {
        if (fileOffset < 0 || fileOffset > image.length || data.length > image.length - fileOffset) {
            throw new IllegalArgumentException("patch of " + data.length + " bytes at 0x" + Long.toHexString(fileOffset)
                    + " is outside the file (" + image.length + " bytes)");
        }
        System.arraycopy(data, 0, image, (int) fileOffset, data.length);
    }

    /**
     * Adds a section at the end of the section header table and returns its index. Its contents
     * go after the existing ones; NOBITS sections take {@code data.length} as their size and no bytes.
     */
    public int addSection(String sectionName, int type, long flags, long address, long alignment, long entrySize,
                          int link, int info, byte[] data) {
        if (sections.isEmpty()) {
            throw new IllegalStateException(name + " has no section header table to add a section to");
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

    /** Adds a SHT_NOTE section holding one note (4-byte aligned; allocated when {@code flags} says so). */
    public int addNote(String sectionName, String owner, int type, byte[] descriptor, long flags, long address) {
        return addSection(sectionName, Section.SHT_NOTE, flags, address, 4, 0, 0, 0, noteBytes(owner, type, descriptor));
    }

    /** The bytes of one note entry: namesz, descsz, type, owner + NUL padded to 4, descriptor padded to 4. */
    public static byte[] noteBytes(String owner, int type, byte[] descriptor) {
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

    public List<Segment> segments() {
        return List.copyOf(segments);
    }

    /** Replaces program header {@code s.index()}. */
    public void setSegment(Segment s) {
        if (s.index() < 0 || s.index() >= segments.size()) {
            throw new IllegalArgumentException("no segment [" + s.index() + "]");
        }
        segments.set(s.index(), s);
    }

    /**
     * Appends a program header and returns its index. When the table outgrows its slot it moves
     * to the end of the file (or to {@link #setProgramHeaderOffset}); mapping it is the caller's job.
     */
    public int addSegment(Segment s) {
        int index = segments.size();
        segments.add(new Segment(index, s.type(), s.flags(), s.offset(), s.virtualAddress(), s.physicalAddress(),
                s.fileSize(), s.memorySize(), s.alignment()));
        return index;
    }

    /** Puts the program header table at this file offset (e.g. inside a section the caller reserved for it). */
    public void setProgramHeaderOffset(long offset) {
        this.programHeaderOffset = offset;
    }

    /** Lays the file out as {@link #toBytes()} would and says where everything went. */
    public Layout layout() {
        return build().layout;
    }

    /** The edited file; the unmodified file when nothing was edited. */
    public byte[] toBytes() {
        return build().bytes;
    }

    /** Writes {@link #toBytes()} atomically. */
    public void write(Path out) {
        AtomicFiles.write(out, toBytes());
    }

    /** The edited file, read back and validated. */
    public ElfFile toElfFile() {
        return ElfFile.parse(toBytes(), name);
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
                throw new IllegalStateException(name + " has no section name string table for the new names");
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
        boolean phMoves = segments.size() > originalPhnum || programHeaderOffset >= 0;
        boolean restructured = moved || phMoves || count != originalShCount;

        ByteArrayOutputStream out = new ByteArrayOutputStream(image.length + 4096);
        long shoff = header.shoff();
        long phoff = segments.isEmpty() ? header.phoff() : originalPhoff;
        if (!restructured) {
            out.writeBytes(image);
        } else {
            // Drop the old section header table when it is the last thing in the file.
            int bodyEnd = originalShCount > 0 && originalShoff + (long) originalShCount * Section.HEADER_SIZE == image.length
                    ? originalShoff : image.length;
            out.write(image, 0, bodyEnd);
            for (int i = 0; i < count; i++) {
                byte[] data = i == shstrndx && names != null ? names : sections.get(i).contents;
                if (data == null) {
                    continue;
                }
                Section s = placed.get(i);
                long at = out.size();
                if (s.type() != Section.SHT_NOBITS) {
                    at = alignUp(at, Math.max(1, s.alignment()));
                    if (s.isAllocated() && s.address() != 0) {
                        at += Math.floorMod(s.address() - at, PAGE_SIZE);
                    }
                    pad(out, at);
                    out.writeBytes(data);
                }
                placed.set(i, withPlacement(s, at, s.type() == Section.SHT_NOBITS ? s.size() : data.length));
            }
            if (phMoves) {
                if (programHeaderOffset >= 0) {
                    phoff = programHeaderOffset;
                } else {
                    phoff = alignUp(out.size(), 8);
                    pad(out, phoff + (long) segments.size() * Segment.HEADER_SIZE);
                }
            }
            if (count > 0) {
                shoff = alignUp(out.size(), 8);
                pad(out, shoff + (long) count * Section.HEADER_SIZE);
            }
        }
        byte[] bytes = out.toByteArray();
        if (!phMoves && !segments.isEmpty() && originalPhnum > 0) {
            // The old slot: clear it, then re-serialise (a smaller table leaves zeros behind).
            Arrays.fill(bytes, (int) originalPhoff, (int) (originalPhoff + (long) originalPhnum * Segment.HEADER_SIZE), (byte) 0);
        }
        if (count > 0 && !restructured) {
            Arrays.fill(bytes, originalShoff, originalShoff + count * Section.HEADER_SIZE, (byte) 0);
        }
        if (phoff + (long) segments.size() * Segment.HEADER_SIZE > bytes.length) {
            throw new IllegalStateException("program header table at 0x" + Long.toHexString(phoff) + " does not fit the file");
        }
        writeSegments(bytes, phoff);
        writeSections(bytes, shoff, placed, nameOffsets);
        writeHeader(bytes, phoff, shoff, count, shstrndx);
        return new Built(bytes, new Layout(phoff, count > 0 ? shoff : 0, List.copyOf(placed), bytes.length));
    }

    private void writeHeader(byte[] bytes, long phoff, long shoff, int count, int shstrndx) {
        ElfHeader h = header;
        int phnum = segments.size() >= ElfHeader.PN_XNUM ? ElfHeader.PN_XNUM : segments.size();
        int shnum = count >= Section.SHN_LORESERVE ? 0 : count;
        int strndx = shstrndx >= Section.SHN_LORESERVE ? Section.SHN_XINDEX : shstrndx;
        ElfHeader out = new ElfHeader(h.elfClass(), h.dataEncoding(), h.identVersion(), h.osAbi(), h.abiVersion(),
                h.type(), h.machine(), h.version(), h.entry(), segments.isEmpty() ? h.phoff() : phoff,
                count == 0 ? h.shoff() : shoff, h.flags(), h.ehsize(),
                segments.isEmpty() ? h.phentsize() : Segment.HEADER_SIZE, phnum,
                count == 0 ? h.shentsize() : Section.HEADER_SIZE, shnum, strndx);
        out.writeTo(bytes, 0);
    }

    private void writeSegments(byte[] bytes, long phoff) {
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

    private void writeSections(byte[] bytes, long shoff, List<Section> placed, int[] nameOffsets) {
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
            if (i == 0 && segments.size() >= ElfHeader.PN_XNUM) {
                info = segments.size();
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

    private static void pad(ByteArrayOutputStream out, long to) {
        while (out.size() < to) {
            out.write(0);
        }
    }

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
