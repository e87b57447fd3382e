package dev.splice.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.Note;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import java.io.PrintWriter;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** `splice info FILE [--json]`: what an ELF file holds, as a table or as JSON. */
@Command(
        name = "info",
        mixinStandardHelpOptions = true,
        description = {
            "Shows an ELF64 file's sections, segments, entry point, symbol and relocation counts, GNU build-id and whether it carries BOLT address translation (.note.bolt_bat)."
        })
final class InfoCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The ELF file to describe.")
    Path file;

    @Option(names = "--json", description = "Print everything as one JSON object instead of tables.")
    boolean json;

    @Option(names = "--functions", description = "List the functions instead (name, address, size, section), "
            + "the ones 'splice disasm --function' and the point specs of 'splice patch' name.")
    boolean functions;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws JsonProcessingException {
        ElfFile elf = ElfFile.read(file);
        PrintWriter out = spec.commandLine().getOut();
        if (functions) {
            printFunctions(elf, out);
        } else if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            out.println(mapper.writeValueAsString(toJson(elf, mapper)));
        } else {
            printText(elf, out);
        }
        out.flush();
        return Main.OK;
    }

    /** One function per line (or one JSON array with --json), in address order. */
    private void printFunctions(ElfFile elf, PrintWriter out) throws JsonProcessingException {
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            com.fasterxml.jackson.databind.node.ArrayNode array = mapper.createArrayNode();
            for (dev.splice.elf.Function f : elf.functions()) {
                ObjectNode o = array.addObject();
                o.put("name", f.name());
                o.put("address", unsigned(f.address()));
                o.put("size", f.size());
                o.put("section", f.section().name());
            }
            out.println(mapper.writeValueAsString(array));
            return;
        }
        out.printf("%-18s %8s  %-20s %s%n", "address", "size", "section", "name");
        for (dev.splice.elf.Function f : elf.functions()) {
            out.printf("%-18s %8d  %-20s %s%n", hex(f.address()), f.size(), f.section().name(), f.name());
        }
    }

    private static long functionSymbols(List<Symbol> symbols) {
        return symbols.stream().filter(Symbol::isFunction).count();
    }

    private static long relocationCount(ElfFile elf) {
        return elf.relocations().stream().mapToLong(r -> r.relocations().size()).sum();
    }

    private static ObjectNode toJson(ElfFile elf, ObjectMapper mapper) {
        ElfHeader h = elf.header();
        ObjectNode root = mapper.createObjectNode();
        root.put("file", elf.name());
        root.put("size", elf.length());
        root.put("class", "ELF64");
        root.put("endianness", "little");
        root.put("type", h.type());
        root.put("typeName", h.typeName());
        root.put("machine", h.machine());
        root.put("machineName", h.machineName());
        root.put("flags", h.flags() & 0xffffffffL);
        root.put("entry", unsigned(h.entry()));
        root.put("buildId", elf.buildId().map(b -> HexFormat.of().formatHex(b)).orElse(null));
        root.put("boltBat", BatTables.enabledFor(elf));
        ObjectNode symbols = root.putObject("symbols");
        symbols.put("symtab", elf.symbols().size());
        symbols.put("dynsym", elf.dynamicSymbols().size());
        symbols.put("symtabFunctions", functionSymbols(elf.symbols()));
        symbols.put("dynsymFunctions", functionSymbols(elf.dynamicSymbols()));
        symbols.put("functions", elf.functions().size());
        ObjectNode relocations = root.putObject("relocations");
        relocations.put("sections", elf.relocations().size());
        relocations.put("entries", relocationCount(elf));
        ArrayNode sections = root.putArray("sections");
        for (Section s : elf.sections()) {
            ObjectNode n = sections.addObject();
            n.put("index", s.index());
            n.put("name", s.name());
            n.put("type", s.type() & 0xffffffffL);
            n.put("typeName", s.typeName());
            n.put("flags", unsigned(s.flags()));
            n.put("flagsText", s.flagsText());
            n.put("address", unsigned(s.address()));
            n.put("offset", unsigned(s.offset()));
            n.put("size", unsigned(s.size()));
            n.put("link", s.link() & 0xffffffffL);
            n.put("info", s.info() & 0xffffffffL);
            n.put("alignment", unsigned(s.alignment()));
            n.put("entrySize", unsigned(s.entrySize()));
        }
        ArrayNode segments = root.putArray("segments");
        for (Segment p : elf.segments()) {
            ObjectNode n = segments.addObject();
            n.put("index", p.index());
            n.put("type", p.type() & 0xffffffffL);
            n.put("typeName", p.typeName());
            n.put("flags", p.flags() & 0xffffffffL);
            n.put("flagsText", p.flagsText().strip());
            n.put("offset", unsigned(p.offset()));
            n.put("virtualAddress", unsigned(p.virtualAddress()));
            n.put("physicalAddress", unsigned(p.physicalAddress()));
            n.put("fileSize", unsigned(p.fileSize()));
            n.put("memorySize", unsigned(p.memorySize()));
            n.put("alignment", unsigned(p.alignment()));
        }
        ArrayNode notes = root.putArray("notes");
        for (Note note : elf.notes()) {
            ObjectNode n = notes.addObject();
            n.put("section", note.section().name());
            n.put("owner", note.owner());
            n.put("type", note.type() & 0xffffffffL);
            n.put("descriptorSize", note.descriptor().length);
            n.put("offset", note.offset());
        }
        ArrayNode relocationSections = root.putArray("relocationSections");
        for (RelocationSection r : elf.relocations()) {
            ObjectNode n = relocationSections.addObject();
            n.put("section", r.section().name());
            n.put("target", r.target().name());
            n.put("entries", r.relocations().size());
        }
        return root;
    }

    private static BigInteger unsigned(long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    private static void printText(ElfFile elf, PrintWriter out) {
        ElfHeader h = elf.header();
        out.printf("File:        %s (%d bytes)%n", elf.name(), elf.length());
        out.printf("Format:      ELF64 little-endian, %s, %s, flags 0x%x%n", h.machineName(), h.typeName(), h.flags());
        out.printf("Entry point: %s%n", hex(h.entry()));
        out.printf("Build-id:    %s%n", elf.buildId().map(b -> HexFormat.of().formatHex(b)).orElse("(none)"));
        out.printf("BOLT BAT:    %s%n", BatTables.enabledFor(elf) ? "yes (" + BatTables.SECTION_NAME + ")" : "no");
        out.printf("Symbols:     %d in .symtab (%d functions), %d in .dynsym (%d functions); %d distinct functions%n",
                elf.symbols().size(), functionSymbols(elf.symbols()), elf.dynamicSymbols().size(),
                functionSymbols(elf.dynamicSymbols()), elf.functions().size());
        out.printf("Relocations: %d in %d RELA sections%n", relocationCount(elf), elf.relocations().size());
        out.println();
        out.printf("Sections (%d):%n", elf.sections().size());
        out.printf("  %4s  %-24s %-16s %-18s %-10s %-10s %-5s %3s %4s %5s%n",
                "[Nr]", "Name", "Type", "Address", "Offset", "Size", "Flags", "Lk", "Inf", "Align");
        for (Section s : elf.sections()) {
            out.printf("  %4s  %-24s %-16s %-18s %-10s %-10s %-5s %3d %4d %5d%n", "[" + s.index() + "]", s.name(),
                    s.typeName(), hex(s.address()), hex(s.offset()), hex(s.size()), s.flagsText(), s.link(), s.info(),
                    s.alignment());
        }
        out.println();
        out.printf("Segments (%d):%n", elf.segments().size());
        out.printf("  %-16s %-10s %-18s %-10s %-10s %-5s %s%n", "Type", "Offset", "VirtAddr", "FileSize", "MemSize",
                "Flags", "Align");
        for (Segment p : elf.segments()) {
            out.printf("  %-16s %-10s %-18s %-10s %-10s %-5s %s%n", p.typeName(), hex(p.offset()), hex(p.virtualAddress()),
                    hex(p.fileSize()), hex(p.memorySize()), p.flagsText(), hex(p.alignment()));
        }
        if (!elf.notes().isEmpty()) {
            out.println();
            out.printf("Notes (%d):%n", elf.notes().size());
            for (Note n : elf.notes()) {
                out.printf("  %-24s %-8s type 0x%x, %d bytes%n", n.section().name(), n.owner(), n.type(), n.descriptor().length);
            }
        }
    }
}
