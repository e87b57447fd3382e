package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;

/**
 * The addresses that name moved code follow it: the ELF entry point, every function symbol (new
 * start, and new size when it covered the whole function) and every label inside a moved function
 * (the new address of its instruction), their section becoming the new one. The old body keeps a
 * symbol of its own ({@link #markOldBodies}).
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

    /** The suffix of the symbol that covers a moved function's old body (its trampoline and the zeroed rest). */
    private static final String OLD_BODY_SUFFIX = ".splice.org";

    /**
     * Gives the old body of every moved function a sized function symbol, {@code NAME.splice.org}
     * (with {@code .ADDRESS} appended when a name repeats). Without it BOLT takes the old body for
     * padding of the function before it, and since the input's relocations still name the old
     * body, BOLT extends that function over it ("has relocations in padding area"), fails to
     * disassemble it and perf2bolt-22 / llvm-bolt-22 crash. The symbol is global and hidden (a
     * local one cannot be appended without renumbering the symbols relocations refer to).
     */
    static void markOldBodies(ElfFile elf, MovedCode moved, ElfEditor editor) {
        Section table = elf.sections().stream().filter(t -> t.type() == Section.SHT_SYMTAB).findFirst().orElse(null);
        if (table == null) {
            return;
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (MovedFunction m : moved.functions()) {
            String name = m.function.name() + OLD_BODY_SUFFIX;
            if (!names.add(name)) {
                name += "." + Long.toHexString(m.function.address());
            }
            editor.addSymbol(table.index(), new Symbol(0, name, m.function.address(), m.function.size(), Symbol.STT_FUNC,
                    Symbol.STB_GLOBAL, Symbol.STV_HIDDEN, m.function.section().index()));
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
