package dev.splice.elf;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.base.InputFiles;
import dev.splice.base.Le;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An ELF64 little-endian file: its bytes and the validated headers. The header, section and
 * program header tables are checked when the file is read; symbol tables, relocations and notes
 * are parsed (and checked) on first use and then cached. An ElfFile never changes: edits go through
 * {@link #edit()}.
 */
public final class ElfFile {
    /** Stands in for "no section" (notes read from PT_NOTE segments of a file without sections). */
    public static final Section NO_SECTION = new Section(0, "", Section.SHT_NULL, 0, 0, 0, 0, 0, 0, 0, 0);

    private final String name;
    private final byte[] bytes;
    private final ElfHeader header;
    private final List<Section> sections;
    private final int[] sectionNameOffsets;
    private final List<Segment> segments;

    private List<Symbol> symbols;
    private List<Symbol> dynamicSymbols;
    private List<Function> functions;
    private long maxFunctionSize;
    private List<Note> notes;
    private List<RelocationSection> relocations;
    private Map<String, Section> sectionsByName;

    private ElfFile(byte[] bytes, String name) {
        this.name = name;
        this.bytes = bytes;
        ElfReader.Layout layout = ElfReader.read(bytes, name);
        this.header = layout.header();
        this.sections = layout.sections();
        this.sectionNameOffsets = layout.sectionNameOffsets();
        this.segments = layout.segments();
    }

    /**
     * Reads and validates a whole ELF64 little-endian file.
     *
     * @param path the file
     * @return the file, its headers checked
     * @throws BadInputException when the file cannot be read or is not a well-formed ELF64 file
     *     ({@link ElfFormatException}, with the offset)
     */
    public static ElfFile read(Path path) {
        String name = path.toString();
        try {
            if (Files.isDirectory(path)) {
                throw new BadInputException(name + ": is a directory, not an ELF file");
            }
            if (Files.exists(path) && !Files.isRegularFile(path)) {
                // Devices and pipes may never end (/dev/zero): refuse instead of reading forever.
                throw new BadInputException(name + ": not a regular file");
            }
            long size = Files.size(path);
            if (size > Integer.MAX_VALUE - 16) {
                throw new ElfFormatException(name, 0, "file of " + size + " bytes is too large (limit 2 GiB)");
            }
            return new ElfFile(Files.readAllBytes(path), name);
        } catch (IOException e) {
            throw InputFiles.unreadable(name, e);
        }
    }

    /** Parses ELF bytes without copying them, for read-only use inside the package (the caller keeps them unchanged). */
    static ElfFile wrap(byte[] bytes, String name) {
        return new ElfFile(bytes, name);
    }

    /**
     * Parses ELF bytes; the array is copied.
     *
     * @param bytes the file's bytes
     * @param name the name used in error messages
     * @return the file, its headers checked
     * @throws ElfFormatException when the bytes are not a well-formed ELF64 file
     */
    public static ElfFile parse(byte[] bytes, String name) {
        return new ElfFile(bytes.clone(), name);
    }

    /** {@return the name the file was read or parsed as (its path), for messages} */
    public String name() {
        return name;
    }

    /** {@return the ELF header} */
    public ElfHeader header() {
        return header;
    }

    /** {@return true for e_machine EM_RISCV} */
    public boolean isRiscV() {
        return header.machine() == ElfHeader.EM_RISCV;
    }

    /** {@return true for e_machine EM_X86_64} */
    public boolean isX86_64() {
        return header.machine() == ElfHeader.EM_X86_64;
    }

    /** {@return the file's size in bytes} */
    public int length() {
        return bytes.length;
    }

    /** {@return the sections in header order; index 0 is the null section; empty without section headers} */
    public List<Section> sections() {
        return sections;
    }

    /**
     * The first section with this name.
     *
     * @param sectionName the name (".text", ...)
     * @return the section, or empty
     */
    public synchronized Optional<Section> section(String sectionName) {
        Map<String, Section> byName = sectionsByName;
        if (byName == null) {
            byName = new HashMap<>();
            for (Section s : sections) {
                byName.putIfAbsent(s.name(), s);
            }
            sectionsByName = byName;
        }
        return Optional.ofNullable(byName.get(sectionName));
    }

    /**
     * The section with this header index.
     *
     * @param index the index, below {@code sections().size()}
     * @return the section
     */
    public Section section(int index) {
        if (index < 0 || index >= sections.size()) {
            throw new IllegalArgumentException("no section [" + index + "] in " + name);
        }
        return sections.get(index);
    }

    /**
     * The allocated, non-empty section whose address range holds {@code address} (executable ones first).
     *
     * @param address a virtual address
     * @return the section, or empty
     */
    public Optional<Section> sectionContaining(long address) {
        Section found = null;
        for (Section s : sections) {
            if (s.size() > 0 && s.contains(address)) {
                if (s.isExecutable()) {
                    return Optional.of(s);
                }
                if (found == null) {
                    found = s;
                }
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * The section's file bytes.
     *
     * @param section a section of this file
     * @return a copy of them (empty for NOBITS and the null section)
     */
    public byte[] contents(Section section) {
        long size = section.fileSize();
        int from = (int) section.offset();
        return size == 0 ? new byte[0] : Arrays.copyOfRange(bytes, from, from + (int) size);
    }

    /**
     * The section's file bytes, without copying.
     *
     * @param section a section of this file
     * @return a read-only little-endian view of them
     */
    public ByteBuffer buffer(Section section) {
        long size = section.fileSize();
        int from = size == 0 ? 0 : (int) section.offset();
        return ByteBuffer.wrap(bytes, from, (int) size).slice().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** {@return a read-only little-endian view of the whole file} */
    public ByteBuffer bytes() {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** {@return the program headers in table order} */
    public List<Segment> segments() {
        return segments;
    }

    /**
     * The file offset that holds the byte at a virtual address, through the PT_LOAD segments.
     *
     * @param address a virtual address
     * @return the offset, or empty when no PT_LOAD maps it from the file
     */
    public OptionalLong fileOffset(long address) {
        for (Segment s : segments) {
            if (s.isLoad() && address - s.virtualAddress() >= 0 && address - s.virtualAddress() < s.fileSize()) {
                return OptionalLong.of(s.offset() + (address - s.virtualAddress()));
            }
        }
        return OptionalLong.empty();
    }

    /** {@return the symbols of .symtab (the first SHT_SYMTAB section), index 0 included; empty if stripped} */
    public synchronized List<Symbol> symbols() {
        if (symbols == null) {
            symbols = firstOfType(Section.SHT_SYMTAB).map(this::parseSymbols).orElse(List.of());
        }
        return symbols;
    }

    /** {@return the symbols of .dynsym (the first SHT_DYNSYM section), index 0 included; empty if none} */
    public synchronized List<Symbol> dynamicSymbols() {
        if (dynamicSymbols == null) {
            dynamicSymbols = firstOfType(Section.SHT_DYNSYM).map(this::parseSymbols).orElse(List.of());
        }
        return dynamicSymbols;
    }

    /**
     * The symbols of a symbol table.
     *
     * @param table a SHT_SYMTAB or SHT_DYNSYM section of this file
     * @return its symbols, index 0 included
     */
    public List<Symbol> symbols(Section table) {
        if (table.type() == Section.SHT_SYMTAB && firstOfType(Section.SHT_SYMTAB).orElse(null) == table) {
            return symbols();
        }
        if (table.type() == Section.SHT_DYNSYM && firstOfType(Section.SHT_DYNSYM).orElse(null) == table) {
            return dynamicSymbols();
        }
        if (table.type() != Section.SHT_SYMTAB && table.type() != Section.SHT_DYNSYM) {
            throw new IllegalArgumentException(table.name() + " is not a symbol table");
        }
        return parseSymbols(table);
    }

    /**
     * The symbols a relocation section's symbol indices name: those of the table its sh_link names, none
     * when sh_link is 0 (allowed for relocations that name no symbol, as a static PIE's .rela.dyn).
     *
     * @param relocations a relocation section of this file
     * @return the symbols, index 0 included; empty for sh_link 0
     */
    public List<Symbol> symbols(RelocationSection relocations) {
        int link = relocations.section().link();
        return link == 0 ? List.of() : symbols(section(link));
    }

    /**
     * The first .symtab symbol with this name, else the first .dynsym one.
     *
     * @param symbolName the name
     * @return the symbol, or empty
     */
    public Optional<Symbol> symbol(String symbolName) {
        for (Symbol s : symbols()) {
            if (s.name().equals(symbolName)) {
                return Optional.of(s);
            }
        }
        for (Symbol s : dynamicSymbols()) {
            if (s.name().equals(symbolName)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * Functions: FUNC symbols (symtab, else dynsym) defined in a section, sorted by address (then
     * size, then symbol order); aliases at the same address and size are kept once (the first
     * global, else the first).
     *
     * @return the functions
     */
    public synchronized List<Function> functions() {
        if (functions == null) {
            List<Symbol> table = symbols().isEmpty() ? dynamicSymbols() : symbols();
            List<Symbol> funcs = new ArrayList<>();
            for (Symbol s : table) {
                if (s.isFunction() && s.isDefinedInSection() && s.sectionIndex() < sections.size()) {
                    funcs.add(s);
                }
            }
            funcs.sort(ElfFile::byAddressSizeIndex);
            List<Function> out = new ArrayList<>(funcs.size());
            long max = 0;
            for (int i = 0; i < funcs.size(); ) {
                Symbol chosen = funcs.get(i);
                int j = i;
                while (j < funcs.size() && funcs.get(j).value() == chosen.value() && funcs.get(j).size() == chosen.size()) {
                    if (funcs.get(j).isGlobal() && !chosen.isGlobal()) {
                        chosen = funcs.get(j);
                    }
                    j++;
                }
                out.add(new Function(chosen.name(), chosen.value(), chosen.size(), sections.get(chosen.sectionIndex())));
                max = Math.max(max, chosen.size());
                i = j;
            }
            maxFunctionSize = max;
            functions = Collections.unmodifiableList(out);
        }
        return functions;
    }

    /** Address, then size (both unsigned), then symbol index; without boxing the keys. */
    private static int byAddressSizeIndex(Symbol a, Symbol b) {
        int c = Long.compareUnsigned(a.value(), b.value());
        if (c == 0) {
            c = Long.compareUnsigned(a.size(), b.size());
        }
        return c != 0 ? c : Integer.compare(a.index(), b.index());
    }

    /**
     * The function whose [address, address + size) holds an address (the innermost, latest-starting one).
     *
     * @param address a virtual address
     * @return the function, or empty
     */
    public Optional<Function> functionContaining(long address) {
        List<Function> fs = functions();
        int lo = 0;
        int hi = fs.size() - 1;
        int last = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(fs.get(mid).address(), address) <= 0) {
                last = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        for (int i = last; i >= 0; i--) {
            Function f = fs.get(i);
            if (f.contains(address)) {
                return Optional.of(f);
            }
            if (address - f.address() > maxFunctionSize) {
                break;
            }
        }
        return Optional.empty();
    }

    /**
     * The first function with this name.
     *
     * @param functionName the name
     * @return the function, or empty
     */
    public Optional<Function> function(String functionName) {
        for (Function f : functions()) {
            if (f.name().equals(functionName)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /** {@return the notes of the SHT_NOTE sections, or of the PT_NOTE segments when the file has no sections} */
    public synchronized List<Note> notes() {
        if (notes == null) {
            List<Note> out = new ArrayList<>();
            if (!sections.isEmpty()) {
                for (Section s : sections) {
                    if (s.type() == Section.SHT_NOTE) {
                        Notes.parse(bytes, name, s.offset(), s.fileSize(), s.alignment(), s, out);
                    }
                }
            } else {
                for (Segment p : segments) {
                    if (p.type() == Segment.PT_NOTE) {
                        Notes.parse(bytes, name, p.offset(), p.fileSize(), p.alignment(), NO_SECTION, out);
                    }
                }
            }
            notes = Collections.unmodifiableList(out);
        }
        return notes;
    }

    /** {@return a copy of the NT_GNU_BUILD_ID descriptor, or empty without one} */
    public Optional<byte[]> buildId() {
        for (Note n : notes()) {
            if (n.type() == Note.NT_GNU_BUILD_ID && n.owner().equals("GNU")) {
                return Optional.of(n.descriptor().clone());
            }
        }
        return Optional.empty();
    }

    /** {@return every SHT_RELA section, parsed, in header order} */
    public synchronized List<RelocationSection> relocations() {
        if (relocations == null) {
            List<RelocationSection> out = new ArrayList<>();
            for (Section s : sections) {
                if (s.type() == Section.SHT_RELA) {
                    out.add(new RelocationSection(s, sections.get(s.info()), parseRelocations(s)));
                }
            }
            relocations = Collections.unmodifiableList(out);
        }
        return relocations;
    }

    /**
     * The relocations that apply to a section (from every RELA section whose sh_info names it).
     *
     * @param target a section of this file
     * @return its relocations, in table order
     */
    public List<Relocation> relocationsFor(Section target) {
        List<Relocation> out = new ArrayList<>();
        for (RelocationSection r : relocations()) {
            if (r.target().index() == target.index() && target.index() != 0) {
                out.addAll(r.relocations());
            }
        }
        return out;
    }

    /** {@return a copy of the file's bytes: exactly the bytes it was read from} */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /**
     * Writes the file's bytes atomically (temporary file in the target directory, then rename).
     *
     * @param out the output file
     */
    public void write(Path out) {
        AtomicFiles.write(out, bytes);
    }

    /** {@return a mutable copy of this file's headers and contents, for rewriting} */
    public ElfEditor edit() {
        return new ElfEditor(this);
    }

    /** The raw sh_name of section {@code index} (its offset in the section name string table). */
    int sectionNameOffset(int index) {
        return sectionNameOffsets[index];
    }

    byte[] rawBytes() {
        return bytes;
    }

    @Override
    public String toString() {
        return "ElfFile[" + name + ", " + header.machineName() + " " + header.typeName() + ", "
                + sections.size() + " sections, " + segments.size() + " segments]";
    }

    private Optional<Section> firstOfType(int type) {
        for (Section s : sections) {
            if (s.type() == type) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    private ElfFormatException bad(long offset, String reason) {
        return new ElfFormatException(name, offset, reason);
    }

    private List<Symbol> parseSymbols(Section table) {
        if (table.isNobits()) {
            return List.of();
        }
        int count = (int) (table.size() / Symbol.ENTRY_SIZE);
        StringTable strings = new StringTable(bytes, name, sections.get(table.link()));
        Section shndxTable = null;
        for (Section s : sections) {
            if (s.type() == Section.SHT_SYMTAB_SHNDX && s.link() == table.index()) {
                shndxTable = s;
            }
        }
        int sectionCount = sections.size();
        Symbol[] out = new Symbol[count];
        long base = table.offset();
        for (int i = 0; i < count; i++) {
            long at = base + (long) i * Symbol.ENTRY_SIZE;
            int info = Le.u8(bytes, at + 4);
            int other = Le.u8(bytes, at + 5);
            int shndx = Le.u16(bytes, at + 6);
            if (shndx == Section.SHN_XINDEX) {
                if (shndxTable == null || (long) i * 4 + 4 > shndxTable.fileSize()) {
                    throw bad(at + 6, "symbol " + i + " of " + table.name()
                            + " uses SHN_XINDEX but there is no SYMTAB_SHNDX entry for it");
                }
                long x = Le.u32L(bytes, shndxTable.offset() + (long) i * 4);
                if (x >= sectionCount) {
                    throw bad(shndxTable.offset() + (long) i * 4, "extended section index " + x + " of symbol " + i
                            + " is out of range (" + sectionCount + " sections)");
                }
                shndx = (int) x;
            } else if (shndx >= sectionCount && shndx < Section.SHN_LORESERVE) {
                throw bad(at + 6, "symbol " + i + " of " + table.name() + " has section index " + shndx
                        + ", out of range (" + sectionCount + " sections)");
            }
            String symbolName = strings.get(Le.u32(bytes, at), at);
            out[i] = new Symbol(i, symbolName, Le.u64(bytes, at + 8), Le.u64(bytes, at + 16), info & 0xf, info >>> 4,
                    other & 0x3, shndx);
        }
        return List.of(out);
    }

    private List<Relocation> parseRelocations(Section s) {
        int count = (int) (s.size() / Relocation.ENTRY_SIZE);
        long symbolCount = 0;
        if (s.link() != 0) {
            Section table = sections.get(s.link());
            symbolCount = table.isNobits() ? 0 : table.size() / Symbol.ENTRY_SIZE;
        }
        Relocation[] out = new Relocation[count];
        long base = s.offset();
        for (int i = 0; i < count; i++) {
            long at = base + (long) i * Relocation.ENTRY_SIZE;
            long info = Le.u64(bytes, at + 8);
            long symbol = info >>> 32;
            if (symbol != 0 && symbol >= symbolCount) {
                throw bad(at + 8, "relocation " + i + " of " + s.name() + " refers to symbol " + symbol
                        + ", out of range (" + symbolCount + " symbols in the linked table)");
            }
            out[i] = new Relocation(Le.u64(bytes, at), (int) info, (int) symbol, Le.u64(bytes, at + 16));
        }
        return List.of(out);
    }
}
