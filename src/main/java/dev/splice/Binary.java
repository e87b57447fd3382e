package dev.splice;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.elf.reloc.RiscVAttributes;
import dev.splice.isa.Extension;
import dev.splice.listing.Region;
import dev.splice.listing.SymbolMap;
import dev.splice.patch.Point;
import dev.splice.patch.PointSelector;
import dev.splice.patch.PointSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A RISC-V64 ELF file, read into memory: its functions, sections and symbols, the instructions of
 * each function, and rewrites of it. The file itself is never modified.
 *
 * <pre>{@code
 * Binary binary = Binary.open(Path.of("prog"));
 * Function main = binary.function("main").orElseThrow();
 * for (Instruction i : main.instructions()) {
 *     System.out.println(Long.toHexString(i.address()) + " " + i.text());
 * }
 * binary.rewrite().insert(main.address(), "addi zero, zero, 0\n").writeTo(Path.of("prog.patched"));
 * }</pre>
 */
public final class Binary {
    private final ElfFile elf;
    private List<Function> functions;
    private PointSelector selector;

    private Binary(ElfFile elf) {
        if (!elf.isRiscV()) {
            throw new BadInputException(elf.name() + ": not a RISC-V ELF file");
        }
        this.elf = elf;
    }

    /**
     * The extensions the file's code is disassembled with by default: those of its
     * {@code .riscv.attributes} Tag_RISCV_arch string, as llvm-objdump chooses them; without the
     * attribute, {@link Extension#classic()}.
     *
     * @return the extensions (a new, modifiable set)
     */
    public java.util.Set<Extension> extensions() {
        return RiscVAttributes.arch(elf).map(Extension::parseArch).orElseGet(Extension::classic);
    }

    /**
     * Reads a RISC-V64 ELF file.
     *
     * @param path the file
     * @return the binary
     * @throws BadInputException when the file cannot be read, is no well-formed ELF64 file or is
     *     not for RISC-V
     */
    public static Binary open(Path path) {
        return new Binary(ElfFile.read(path));
    }

    /**
     * A RISC-V64 ELF file already in memory.
     *
     * @param bytes the whole file
     * @param name the name messages give the file
     * @return the binary
     * @throws BadInputException as {@link #open(Path)}
     */
    public static Binary of(byte[] bytes, String name) {
        return new Binary(ElfFile.parse(bytes, name));
    }

    /**
     * The name the file was opened by.
     *
     * @return the path as given, or the name given to {@link #of(byte[], String)}
     */
    public String name() {
        return elf.name();
    }

    /**
     * The ELF model underneath, for what this class does not offer (segments, notes, relocations).
     *
     * @return the ELF file
     */
    public ElfFile elf() {
        return elf;
    }

    /**
     * The functions: FUNC symbols (of {@code .symtab}, else {@code .dynsym}) defined in a section.
     *
     * @return the functions sorted by address (then size), each alias group once
     */
    public synchronized List<Function> functions() {
        if (functions == null) {
            List<Function> out = new ArrayList<>();
            for (dev.splice.elf.Function f : elf.functions()) {
                out.add(new Function(this, f));
            }
            functions = List.copyOf(out);
        }
        return functions;
    }

    /**
     * The first function with this name.
     *
     * @param name a symbol name
     * @return the function, or empty when no function has the name
     */
    public Optional<Function> function(String name) {
        return elf.function(name).map(f -> new Function(this, f));
    }

    /**
     * The function whose bytes hold an address (the innermost one when functions nest).
     *
     * @param address an address
     * @return the function, or empty when no function holds the address
     */
    public Optional<Function> functionContaining(long address) {
        return elf.functionContaining(address).map(f -> new Function(this, f));
    }

    /**
     * The section headers.
     *
     * @return every section, in header order (index 0 is the null section)
     */
    public List<Section> sections() {
        return elf.sections();
    }

    /**
     * The static symbol table.
     *
     * @return the symbols of {@code .symtab} (empty when the file is stripped)
     */
    public List<Symbol> symbols() {
        return elf.symbols();
    }

    /**
     * The insertion points that specs select (docs/patch.md, "Choosing points"): {@code ADDR},
     * {@code SYMBOL+OFFSET}, {@code entry:GLOB}, {@code exit:GLOB}, {@code block:GLOB},
     * {@code call:GLOB}, {@code loop:GLOB}, {@code insn:GLOB:REGEX}, each with the refusal an
     * insertion there would meet. {@link Rewrite#at(String, String)} inserts at them.
     *
     * <pre>{@code
     * for (Point p : binary.points("loop:hot_*")) {
     *     System.out.println(p.location() + (p.accepted() ? "" : " refused: " + p.refusal().reason()));
     * }
     * }</pre>
     *
     * @param specs the specs
     * @return each spec's points in address order, the specs in the order given
     * @throws BadInputException when a spec is malformed ({@link dev.splice.patch.PointSpecException},
     *     naming the spec and the column), a symbol is unknown, or a glob matches no function
     */
    public List<Point> points(String... specs) {
        List<PointSpec> parsed = new ArrayList<>();
        for (String spec : specs) {
            parsed.add(PointSpec.parse(spec));
        }
        return selector().select(parsed);
    }

    private synchronized PointSelector selector() {
        if (selector == null) {
            selector = PointSelector.of(elf); // decodes functions on first use, then keeps them
        }
        return selector;
    }

    /**
     * Starts a rewrite: replacements and insertions, written to a new file.
     *
     * @return an empty rewrite of this binary
     */
    public Rewrite rewrite() {
        return new Rewrite(elf);
    }

    /**
     * The code regions to list: the named sections, then the named functions; without names, every
     * executable section with contents.
     *
     * @param sectionNames sections to list, in order
     * @param functionNames functions to list, in order (the first function of each name)
     * @return the regions, for the listing writers
     * @throws BadInputException when a name is unknown, a section has no contents in the file, a
     *     function does not lie inside its section, or (without names) nothing is executable
     */
    public List<Region> regions(List<String> sectionNames, List<String> functionNames) {
        List<Region> regions = new ArrayList<>();
        if (sectionNames.isEmpty() && functionNames.isEmpty()) {
            for (Section section : elf.sections()) {
                if (section.isExecutable() && !section.isNobits() && section.size() > 0) {
                    regions.add(Region.section(section.name(), section.address(), elf.contents(section)));
                }
            }
            if (regions.isEmpty()) {
                throw new BadInputException(name() + ": no executable section with contents");
            }
            return regions;
        }
        for (String sectionName : sectionNames) {
            Section section = elf.section(sectionName).orElseThrow(() -> new BadInputException(
                    name() + ": no section named '" + sectionName + "'"));
            if (section.isNobits()) {
                throw new BadInputException(name() + ": section '" + sectionName
                        + "' has no contents in the file (NOBITS)");
            }
            regions.add(Region.section(section.name(), section.address(), elf.contents(section)));
        }
        for (String functionName : functionNames) {
            regions.add(function(functionName).orElseThrow(() -> new BadInputException(
                    name() + ": no function named '" + functionName + "'")).region());
        }
        return regions;
    }

    /**
     * The names the listing writers give targets and {@code auipc} pairs: functions and sized data
     * objects.
     *
     * @return the symbol map of this binary
     */
    public SymbolMap symbolMap() {
        List<SymbolMap.Entry> entries = new ArrayList<>();
        for (dev.splice.elf.Function f : elf.functions()) {
            entries.add(new SymbolMap.Entry(f.name(), f.address(), f.size()));
        }
        for (Symbol s : elf.symbols()) {
            if (s.type() == Symbol.STT_OBJECT && s.size() > 0 && !s.name().isEmpty()) {
                entries.add(new SymbolMap.Entry(s.name(), s.value(), s.size()));
            }
        }
        return new SymbolMap(entries);
    }

    /**
     * The file's name, for messages.
     *
     * @return {@link #name()}
     */
    @Override
    public String toString() {
        return name();
    }
}
