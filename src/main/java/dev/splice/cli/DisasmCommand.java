package dev.splice.cli;

import dev.splice.Binary;
import dev.splice.base.AtomicFiles;
import dev.splice.base.InputFiles;
import dev.splice.base.OutputPaths;
import dev.splice.listing.JsonlWriter;
import dev.splice.listing.ListingWriter;
import dev.splice.listing.Region;
import dev.splice.listing.SymbolMap;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
            description = "List only what lies at or after ADDR (0x hex or decimal), as objdump's option.")
    Long start;

    @Option(names = "--stop-address", paramLabel = "ADDR", converter = AddressConverter.class,
            description = "List only what lies before ADDR, as objdump's option.")
    Long stop;

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

    @Option(names = "--base", paramLabel = "ADDR", description = "With --raw: address of the first byte (default 0).",
            converter = AddressConverter.class)
    Long base;

    /** The decoder tables take as long to build as picocli takes to start: overlap them. */
    @Override
    public void warmUp() {
        DecoderTables.startBuilding();
    }

    @Override
    public Integer call() throws Exception {
        DecoderTables.startBuilding(); // builds the decoder tables while the input is read (if warmUp did not)
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
        List<Region> regions;
        SymbolMap symbols = SymbolMap.EMPTY;
        if (raw) {
            if (!sections.isEmpty() || !functions.isEmpty()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--section and --function need an ELF file, not --raw");
            }
            regions = List.of(Region.raw(base == null ? 0 : base, InputFiles.readBytes(file)));
        } else {
            if (base != null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--base needs --raw");
            }
            Binary binary = Binary.open(file);
            regions = binary.regions(sections, functions);
            symbols = binary.symbolMap();
        }
        if (start != null || stop != null) {
            regions = Region.clip(regions, start == null ? 0 : start, stop == null ? -1 : stop);
            if (regions.isEmpty()) {
                throw new dev.splice.base.BadInputException(file + ": nothing to list between --start-address and --stop-address");
            }
        }
        SymbolMap names = symbols;
        List<Region> listed = regions;
        AtomicFiles.writeOrPrint(output, out -> {
            if (format == Format.jsonl) {
                new JsonlWriter(aliases, names).write(listed, out);
            } else {
                new ListingWriter(aliases, names).write(listed, out);
            }
        });
        return Main.OK;
    }

    /** Addresses as 0x hex or decimal, unsigned 64-bit. */
    static final class AddressConverter implements picocli.CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                String v = value.trim();
                if (v.startsWith("0x") || v.startsWith("0X")) {
                    return Long.parseUnsignedLong(v.substring(2), 16);
                }
                return Long.parseUnsignedLong(v);
            } catch (NumberFormatException e) {
                throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not an address (0x... or decimal)");
            }
        }
    }

}
