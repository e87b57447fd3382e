package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The relocations the dynamic loader applies ({@code .rela.dyn}, {@code .rela.plt}: the allocated
 * RELA sections of a binary with a {@code .dynamic} section), with their symbols resolved in
 * {@code .dynsym}, their targets (the section holding {@code r_offset}, or the null section) and
 * the address of each entry, where its addend is rewritten. Static executables have none here:
 * their IRELATIVE entries stay as they are, and the old entry of a moved resolver jumps to its copy.
 */
final class DynamicRelocations {
    /** The offset of {@code r_addend} in a RELA entry. */
    static final int ADDEND_OFFSET = 16;

    private final List<Reloc> all;
    private final Map<Reloc, Long> entryAddresses;
    /** The relocations by r_offset (the last one of several at one place). */
    private final Map<Long, Reloc> byOffset = new HashMap<>();

    private DynamicRelocations(List<Reloc> all, Map<Reloc, Long> entryAddresses) {
        this.all = all;
        this.entryAddresses = entryAddresses;
        for (Reloc r : all) {
            byOffset.put(r.offset(), r);
        }
    }

    /** Reads the dynamic relocations of {@code elf}. */
    static DynamicRelocations read(ElfFile elf) {
        List<Reloc> all = new ArrayList<>();
        Map<Reloc, Long> entries = new IdentityHashMap<>();
        if (elf.sections().stream().noneMatch(s -> s.type() == Section.SHT_DYNAMIC)) {
            return new DynamicRelocations(all, entries);
        }
        for (RelocationSection rs : elf.relocations()) {
            Section section = rs.section();
            if (!section.isAllocated()) {
                continue;
            }
            List<Symbol> symbols = elf.symbols(rs);
            List<Relocation> list = rs.relocations();
            for (int i = 0; i < list.size(); i++) {
                Relocation r = list.get(i);
                long value = 0;
                String name = "";
                if (r.symbolIndex() != 0) {
                    if (r.symbolIndex() >= symbols.size()) {
                        throw new PatchException(Reason.MALFORMED_INPUT, elf.name() + ": " + section.name() + ": relocation at 0x"
                                + Long.toHexString(r.offset()) + " names symbol " + r.symbolIndex() + " of " + symbols.size());
                    }
                    Symbol s = symbols.get(r.symbolIndex());
                    value = s.isDefinedInSection() ? s.value() : 0;
                    name = s.name();
                }
                Reloc reloc = new Reloc(section, elf.sectionContaining(r.offset()).orElse(ElfFile.NO_SECTION), r, value, name);
                all.add(reloc);
                entries.put(reloc, section.address() + (long) i * Relocation.ENTRY_SIZE);
            }
        }
        return new DynamicRelocations(all, entries);
    }

    /** Every dynamic relocation, in the order of their sections and entries. */
    List<Reloc> all() {
        return all;
    }

    /** The address of the RELA entry of {@code r}, one of {@link #all()}. */
    long entryAddress(Reloc r) {
        return entryAddresses.get(r);
    }

    /** The dynamic relocation that applies to {@code address}, or null. */
    Reloc at(long address) {
        return byOffset.isEmpty() ? null : byOffset.get(address);
    }
}
