package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;

/**
 * The symbols the dynamic loader looks up ({@code .dynsym}) follow moved code: a symbol in a moved
 * function gets the address references to it go to now (the branch target policy, as for calls:
 * PLT calls and {@code dlsym} resolve through it), a function symbol that covered its whole
 * function the size up to the end of the copy. Names, versions ({@code .gnu.version}) and the hash
 * tables stay: {@code .gnu.hash} and {@code .hash} depend on names only.
 */
final class DynamicSymbols {
    private DynamicSymbols() {}

    /** The new value of a dynamic symbol whose value was {@code value}. */
    static long newValue(MovedCode moved, long value) {
        return moved.mapBranchTarget(value);
    }

    /** Moves the {@code .dynsym} symbols in moved code into the section at {@code textIndex}. */
    static void move(ElfFile elf, MovedCode moved, ElfEditor editor, int textIndex) {
        for (Section table : elf.sections()) {
            if (table.type() != Section.SHT_DYNSYM) {
                continue;
            }
            for (Symbol s : elf.symbols(table)) {
                if (!s.isDefinedInSection() || s.type() == Symbol.STT_SECTION || !elf.section(s.sectionIndex()).isExecutable()) {
                    continue;
                }
                MovedFunction m = moved.find(s.value());
                if (m == null) {
                    continue;
                }
                long value = newValue(moved, s.value());
                long size = s.size();
                if (s.value() == m.function.address() && s.size() == m.function.size()) {
                    size = m.newStart + m.newSize - value;
                }
                editor.setSymbol(table.index(), new Symbol(s.index(), s.name(), value, size, s.type(), s.binding(),
                        s.visibility(), textIndex));
            }
        }
    }
}
