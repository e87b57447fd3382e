package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;

/**
 * The addresses that name moved code follow it: the ELF entry point, every function symbol (new
 * start, and new size when it covered the whole function) and every label inside a moved function
 * (the new address of its instruction), their section becoming the new one.
 */
final class SymbolMover {
    private SymbolMover() {}

    /** Moves the entry point when it lies in moved code. */
    static void moveEntry(ElfFile elf, MovedCode moved, ElfEditor editor) {
        long entry = elf.header().entry();
        if (moved.find(entry) != null) {
            editor.setEntry(moved.mapBranchTarget(entry));
        }
    }

    /** Moves the symbols of the moved code into the section at {@code textIndex}. */
    static void moveSymbols(ElfFile elf, MovedCode moved, ElfEditor editor, int textIndex) {
        for (Section table : elf.sections()) {
            if (table.type() != Section.SHT_SYMTAB) {
                continue;
            }
            for (Symbol s : elf.symbols(table)) {
                if (!s.isDefinedInSection() || s.type() == Symbol.STT_SECTION || s.type() == Symbol.STT_FILE) {
                    continue;
                }
                MovedFunction m = moved.find(s.value());
                if (m == null || !elf.section(s.sectionIndex()).isExecutable()) {
                    continue;
                }
                long value;
                long size = s.size();
                if (s.value() == m.function.address()) {
                    value = m.newStart;
                    if (s.size() == m.function.size()) {
                        size = m.newSize;
                    }
                } else {
                    value = moved.mapInstruction(s.value());
                }
                editor.setSymbol(table.index(), new Symbol(s.index(), s.name(), value, size, s.type(), s.binding(),
                        s.visibility(), textIndex));
            }
        }
    }
}
