package dev.splice.listing;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Regions of the test programs, read with the project's ELF reader. */
final class Listings {
    private Listings() {}

    static List<Region> executableSections(ElfFile elf) {
        List<Region> regions = new ArrayList<>();
        for (Section s : elf.sections()) {
            if (s.isExecutable() && !s.isNobits() && s.size() > 0) {
                regions.add(Region.section(s.name(), s.address(), elf.contents(s)));
            }
        }
        return regions;
    }

    static Region function(ElfFile elf, Function f) {
        Section s = f.section();
        byte[] contents = elf.contents(s);
        int start = (int) (f.address() - s.address());
        return Region.function(f.name(), f.address(), Arrays.copyOfRange(contents, start, start + (int) f.size()));
    }

    static Region function(Path program, String name) {
        ElfFile elf = ElfFile.read(program);
        Function f = elf.functions().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        return function(elf, f);
    }

    static SymbolMap symbols(ElfFile elf) {
        List<SymbolMap.Entry> entries = new ArrayList<>();
        for (Function f : elf.functions()) {
            entries.add(new SymbolMap.Entry(f.name(), f.address(), f.size()));
        }
        return new SymbolMap(entries);
    }
}
