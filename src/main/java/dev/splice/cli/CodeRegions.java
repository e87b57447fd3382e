package dev.splice.cli;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.listing.Region;
import dev.splice.listing.SymbolMap;
import java.util.ArrayList;
import java.util.List;

/** Picks the code regions of an ELF file that the listing commands print. */
final class CodeRegions {
    private CodeRegions() {}

    /** The chosen sections and functions, or every executable section with contents. */
    static List<Region> select(ElfFile elf, List<String> sections, List<String> functions) {
        requireRiscV(elf);
        List<Region> regions = new ArrayList<>();
        if (sections.isEmpty() && functions.isEmpty()) {
            for (Section section : elf.sections()) {
                if (section.isExecutable() && !section.isNobits() && section.size() > 0) {
                    regions.add(Region.section(section.name(), section.address(), elf.contents(section)));
                }
            }
            if (regions.isEmpty()) {
                throw new BadInputException(elf.name() + ": no executable section with contents");
            }
            return regions;
        }
        for (String name : sections) {
            Section section = elf.section(name).orElseThrow(() -> new BadInputException(
                    elf.name() + ": no section named '" + name + "'"));
            if (section.isNobits()) {
                throw new BadInputException(elf.name() + ": section '" + name + "' has no contents in the file (NOBITS)");
            }
            regions.add(Region.section(section.name(), section.address(), elf.contents(section)));
        }
        for (String name : functions) {
            Function function = elf.functions().stream().filter(f -> f.name().equals(name)).findFirst()
                    .orElseThrow(() -> new BadInputException(elf.name() + ": no function named '" + name + "'"));
            regions.add(function(elf, function));
        }
        return regions;
    }

    /** The bytes of one function, checked to lie inside its section. */
    static Region function(ElfFile elf, Function function) {
        Section section = function.section();
        if (section == null || section.isNobits()) {
            throw new BadInputException(elf.name() + ": function '" + function.name() + "' is not in a section with contents");
        }
        long start = function.address() - section.address();
        if (start < 0 || function.size() < 0 || start > section.size() || function.size() > section.size() - start) {
            throw new BadInputException(elf.name() + ": function '" + function.name() + "' (0x"
                    + Long.toHexString(function.address()) + ", " + function.size() + " bytes) lies outside its section "
                    + section.name());
        }
        // A view of the section, not a copy: export reads thousands of functions of one section.
        byte[] bytes = new byte[(int) function.size()];
        elf.buffer(section).get((int) start, bytes);
        return Region.function(function.name(), function.address(), bytes);
    }

    private static final int STT_OBJECT = 1;

    /** Function and data object names for comments on targets and on auipc pairs. */
    static SymbolMap symbols(ElfFile elf) {
        List<SymbolMap.Entry> entries = new ArrayList<>();
        for (Function f : elf.functions()) {
            entries.add(new SymbolMap.Entry(f.name(), f.address(), f.size()));
        }
        for (dev.splice.elf.Symbol s : elf.symbols()) {
            if (s.type() == STT_OBJECT && s.size() > 0 && !s.name().isEmpty()) {
                entries.add(new SymbolMap.Entry(s.name(), s.value(), s.size()));
            }
        }
        return new SymbolMap(entries);
    }

    static void requireRiscV(ElfFile elf) {
        if (!elf.isRiscV()) {
            throw new BadInputException(elf.name() + ": not a RISC-V ELF file");
        }
    }
}
