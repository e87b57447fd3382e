package dev.splice.cli;

import dev.splice.Binary;
import dev.splice.base.AddressText;
import dev.splice.base.AtomicFiles;
import dev.splice.base.InputFiles;
import dev.splice.base.OutputPaths;
import dev.splice.elf.ElfFile;
import dev.splice.elf.SymbolAddress;
import dev.splice.isa.Extension;
import dev.splice.listing.JsonlWriter;
import dev.splice.listing.ListingWriter;
import dev.splice.listing.Region;
import dev.splice.listing.SymbolMap;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** `splice disasm`: the listing of code in an ELF file or in a raw byte file. */
@Command(
        name = "disasm",
        mixinStandardHelpOptions = true,
        description = {
            "Disassembles the executable sections of a RISC-V64 ELF file (or the chosen sections and functions, or a raw byte file with --raw) into an editable listing that 'splice asm' reassembles to the same bytes."
        })
final class DisasmCommand implements Callable<Integer>, Main.WarmsUp {
    enum Format { listing, jsonl }

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "ELF file (or raw bytes with --raw).")
    Path file;

    @Option(names = "--section", paramLabel = "NAME", description = "List this section (repeatable).")
    List<String> sections = new ArrayList<>();

    @Option(names = {"--function", "--disassemble"}, paramLabel = "NAME", arity = "0..1", fallbackValue = "",
            description = "List this function (repeatable). objdump's --disassemble=SYM; --disassemble alone is -d.")
    List<String> functions = new ArrayList<>();

    @Option(names = "-d", description = "The executable sections (the default; accepted as objdump accepts it).")
    boolean executableSections;

    @Option(names = "--start-address", paramLabel = "ADDR", converter = AddressConverter.class,
            description = "List only what lies at or after ADDR (0x hex, decimal, bare hex as objdump prints it, "
                    + "or SYMBOL+OFFSET), as objdump's option.")
    AddressText.Parsed start;

    @Option(names = "--stop-address", paramLabel = "ADDR", converter = AddressConverter.class,
            description = "List only what lies before ADDR, as objdump's option.")
    AddressText.Parsed stop;

    @Option(names = "--aliases", description = "Readable aliases (li, mv, ret, j, ...); not guaranteed to reassemble.")
    boolean aliases;

    @Option(names = "-M", paramLabel = "OPTIONS", split = ",",
            description = "objdump's disassembler options: 'aliases' (as --aliases) or 'no-aliases' (the default).")
    List<String> disassemblerOptions = new ArrayList<>();

    @Option(names = "--format", paramLabel = "FORMAT", description = "listing (default) or jsonl (one JSON object per instruction).")
    Format format = Format.listing;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default: standard output).")
    Path output;

    @Option(names = "--raw", description = "FILE holds raw machine code, not an ELF file.")
    boolean raw;

    @Option(names = "--target", paramLabel = "ISA|PROFILE",
            description = "Decode only these extensions (an ISA string as -march spells it, rv64gcv_zfh_zbc, or a profile, rva22u64 or rva23u64); what they do not enable is listed raw, as llvm-objdump --mattr. Default: the ELF file's Tag_RISCV_arch; rv64gc with Zicbom, Zicboz, Zicond, Zihintpause, Zba, Zbb, Zbs for --raw input and ELF files without the attribute.")
    String target;

    @Option(names = "--base", paramLabel = "ADDR", description = "With --raw: address of the first byte (default 0).",
            converter = AddressConverter.class)
    AddressText.Parsed base;

    /** The decoder tables take as long to build as picocli takes to start: overlap them. */
    @Override
    public void warmUp() {
        DecoderTables.startBuilding(DecoderTables.likelyTarget());
    }

    @Override
    public Integer call() throws Exception {
        DecoderTables.startBuilding(DecoderTables.likelyTarget()); // while the input is read (if warmUp did not)
        OutputPaths.check(output, file);
        functions.removeIf(String::isEmpty); // --disassemble without a symbol: everything, as -d
        for (String option : disassemblerOptions) {
            switch (option) {
                case "aliases" -> aliases = true;
                case "no-aliases" -> aliases = false;
                default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "-M " + option + ": Splice knows the disassembler options 'aliases' and 'no-aliases'");
            }
        }
        Set<Extension> extensions = null;
        if (target != null) {
            try {
                extensions = Extension.parseTarget(target);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--target: " + e.getMessage());
            }
        }
        List<Region> regions;
        SymbolMap symbols = SymbolMap.EMPTY;
        ElfFile elf = null;
        if (raw) {
            if (!sections.isEmpty() || !functions.isEmpty()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--section and --function need an ELF file, not --raw");
            }
            regions = List.of(Region.raw(base == null ? 0 : number(base, "--base"), InputFiles.readBytes(file)));
            if (extensions == null) {
                extensions = Extension.classic();
            }
        } else {
            if (base != null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--base needs --raw");
            }
            Binary binary = Binary.open(file);
            elf = binary.elf();
            if (extensions == null) {
                extensions = binary.extensions();
            }
            DecoderTables.startBuilding(extensions); // if not the likely set: while the regions are cut out
            regions = binary.regions(sections, functions);
            symbols = binary.symbolMap();
        }
        if (start != null || stop != null) {
            regions = Region.clip(regions, start == null ? 0 : address(start, elf, "--start-address"),
                    stop == null ? -1 : address(stop, elf, "--stop-address"));
            if (regions.isEmpty()) {
                throw new dev.splice.base.BadInputException(file + ": nothing to list between --start-address and --stop-address");
            }
        }
        SymbolMap names = symbols;
        List<Region> listed = regions;
        Set<Extension> decoded = extensions;
        AtomicFiles.writeOrPrint(output, out -> {
            if (format == Format.jsonl) {
                new JsonlWriter(aliases, names, decoded).write(listed, out);
            } else {
                new ListingWriter(aliases, names, decoded).write(listed, out);
            }
        });
        return Main.OK;
    }

    /** A number, or with an ELF input a symbol's address plus the offset. */
    private long address(AddressText.Parsed a, ElfFile elf, String option) {
        if (a.isNumber()) {
            return a.offset();
        }
        if (elf == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), option + " " + a.symbol()
                    + ": a symbol needs an ELF file, not --raw");
        }
        return SymbolAddress.resolve(elf, a.symbol(), a.offset(), option + " " + a.symbol() + "+0x" + Long.toHexString(a.offset()));
    }

    private long number(AddressText.Parsed a, String option) {
        if (!a.isNumber()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), option + " needs a number, not a symbol");
        }
        return a.offset();
    }

    /** Addresses as {@link AddressText} reads them. */
    static final class AddressConverter implements picocli.CommandLine.ITypeConverter<AddressText.Parsed> {
        @Override
        public AddressText.Parsed convert(String value) {
            try {
                return AddressText.parse(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

}
