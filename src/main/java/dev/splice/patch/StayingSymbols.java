package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The input's named symbols of code and data that stay where they are, by address: what a new
 * relocation of an output names when its value lies outside moved code, so that no relocation in
 * code names a section symbol. ld never writes one (its outputs name a function, an object or a
 * local label), and llvm-bolt-22 misreads an {@code R_RISCV_CALL} or {@code R_RISCV_PCREL_HI20}
 * against a section symbol: it takes the target from the auipc's upper 20 bits alone, up to
 * 2 KiB off (docs/patch.md, "The output's relocations").
 */
final class StayingSymbols {
    /** Per address, the symbol that names it best; per address a function's or an object's wins. */
    private final TreeMap<Long, Symbol> byAddress = new TreeMap<>();
    private final ElfFile elf;

    /**
     * @param elf the input
     * @param symbols its {@code .symtab}
     * @param moved its moved code (symbols of moved code have other values in the output)
     */
    StayingSymbols(ElfFile elf, List<Symbol> symbols, MovedCode moved) {
        this.elf = elf;
        for (Symbol s : symbols) {
            if (!names(elf, s) || SymbolMover.newValue(elf, moved, s) != s.value()) {
                continue;
            }
            byAddress.merge(s.value(), s, (old, now) -> rank(now) > rank(old) ? now : old);
        }
    }

    /** Symbols a relocation can name: defined in an allocated section, neither a section, a file, nor a local label. */
    private static boolean names(ElfFile elf, Symbol s) {
        if (!s.isDefinedInSection() || s.index() == 0 || s.name().isEmpty() || s.name().startsWith(".L")
                || s.name().startsWith("$") || OutputRelocations.isTextSymbol(s.name())) {
            return false;
        }
        int type = s.type();
        return (type == Symbol.STT_FUNC || type == Symbol.STT_OBJECT || type == Symbol.STT_NOTYPE)
                && elf.section(s.sectionIndex()).isAllocated();
    }

    /** Functions and objects first, sized before unsized, global before the others. */
    private static int rank(Symbol s) {
        int kind = s.type() == Symbol.STT_NOTYPE ? 0 : 4;
        int sized = s.size() > 0 ? 2 : 0;
        int bind = s.isGlobal() ? 1 : 0;
        return kind + sized + bind;
    }

    /**
     * The symbol with which a relocation names {@code value} in {@code section}: the nearest at or
     * below it in that section; in code, only one of the function holding it (else null).
     *
     * @param value an address outside moved code
     * @param section the allocated section holding it
     * @return the symbol and the addend, or null when no symbol of that section lies at or below it
     */
    Map.Entry<Symbol, Long> naming(long value, Section section) {
        Map.Entry<Long, Symbol> e = byAddress.floorEntry(value);
        while (e != null && e.getValue().sectionIndex() != section.index() && e.getKey() >= section.address()) {
            e = byAddress.lowerEntry(e.getKey());
        }
        if (e == null || e.getValue().sectionIndex() != section.index()) {
            return null;
        }
        if (section.isExecutable()) {
            // In code only a symbol of the function holding the value (BOLT calls a reference through
            // another function's symbol "non-standard" and takes it for that function's).
            Function f = elf.functionContaining(value).orElse(null);
            if (f == null || e.getKey() < f.address()) {
                return null;
            }
        }
        return Map.entry(e.getValue(), value - e.getKey());
    }
}
