package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The addresses that name moved code follow it: the ELF entry point, every function symbol (new
 * start, and new size when it covered the whole function) and every label inside a moved function
 * (the new address of its instruction), their section becoming the new one. The old body keeps a
 * symbol of its own ({@link #markOldBodies}). Section symbols follow sections that moved
 * ({@link #moveSectionSymbols}).
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

    /** True for the name {@link #markOldBodies} gives an old body (a second pass must not move it). */
    static boolean isOldBody(String name) {
        return name.endsWith(OLD_BODY_SUFFIX) || name.contains(OLD_BODY_SUFFIX + ".");
    }

    /**
     * Gives the old body of every moved function a sized function symbol, {@code NAME.splice.org}
     * (with {@code .ADDRESS} appended when a name repeats). Without it BOLT takes the old body for
     * padding of the function before it, and since the input's relocations still name the old
     * body, BOLT extends that function over it ("has relocations in padding area"), fails to
     * disassemble it and perf2bolt-22 / llvm-bolt-22 crash. The symbol is global and hidden (a
     * local one cannot be appended without renumbering the symbols relocations refer to).
     * Returns the new symbols' indices, which the output's relocations name ({@link OutputRelocations}).
     */
    static Map<MovedFunction, Integer> markOldBodies(ElfFile elf, MovedCode moved, ElfEditor editor) {
        Section table = elf.sections().stream().filter(t -> t.type() == Section.SHT_SYMTAB).findFirst().orElse(null);
        Map<MovedFunction, Integer> indices = new HashMap<>();
        if (table == null) {
            return indices;
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Symbol s : elf.symbols(table)) { // a second pass: the first one's old bodies keep their names
            if (s.name().endsWith(OLD_BODY_SUFFIX)) {
                names.add(s.name());
            }
        }
        for (MovedFunction m : moved.functions()) {
            String name = m.function.name() + OLD_BODY_SUFFIX;
            if (!names.add(name)) {
                name += "." + Long.toHexString(m.function.address());
            }
            indices.put(m, editor.addSymbol(table.index(), new Symbol(0, name, m.function.address(), m.function.size(),
                    Symbol.STT_FUNC, Symbol.STB_GLOBAL, Symbol.STV_HIDDEN, m.function.section().index())));
        }
        return indices;
    }

    /** Moves the symbols of the moved code into the section at {@code textIndex}. */
    static void moveSymbols(ElfFile elf, MovedCode moved, ElfEditor editor, int textIndex) {
        for (Section table : elf.sections()) {
            if (table.type() != Section.SHT_SYMTAB) {
                continue;
            }
            for (Symbol s : elf.symbols(table)) {
                MovedFunction m = movedCodeOf(elf, moved, s);
                if (m == null) {
                    continue;
                }
                long value = newValue(elf, moved, s);
                long size = s.size();
                if (s.value() == m.function.address() && s.size() == m.function.size()) {
                    size = m.newSize;
                }
                editor.setSymbol(table.index(), new Symbol(s.index(), s.name(), value, size, s.type(), s.binding(),
                        s.visibility(), textIndex));
            }
        }
    }

    /**
     * Section symbols (of {@code .symtab} and {@code .dynsym}) of sections that moved to make room for
     * the program header table (notes, {@code .interp}, {@code .gnu.hash}) name their new addresses.
     */
    static void moveSectionSymbols(ElfFile elf, ElfEditor editor, int[] movedSections) {
        Set<Integer> movedSet = Arrays.stream(movedSections).boxed().collect(Collectors.toSet());
        for (Section table : elf.sections()) {
            if (table.type() != Section.SHT_SYMTAB && table.type() != Section.SHT_DYNSYM) {
                continue;
            }
            for (Symbol s : elf.symbols(table)) {
                if (s.type() == Symbol.STT_SECTION && s.isDefinedInSection() && movedSet.contains(s.sectionIndex())) {
                    editor.setSymbol(table.index(), new Symbol(s.index(), s.name(), editor.section(s.sectionIndex()).address(),
                            s.size(), s.type(), s.binding(), s.visibility(), s.sectionIndex()));
                }
            }
        }
    }

    /** The value {@link #moveSymbols} gives symbol {@code s}: the new address of the moved code it names, else its own. */
    static long newValue(ElfFile elf, MovedCode moved, Symbol s) {
        MovedFunction m = movedCodeOf(elf, moved, s);
        if (m == null) {
            return s.value();
        }
        return s.value() == m.function.address() ? m.newStart : moved.mapInstruction(s.value());
    }

    /** The moved function a symbol of code names, or null (sections, files, data, code that stays). */
    private static MovedFunction movedCodeOf(ElfFile elf, MovedCode moved, Symbol s) {
        if (!s.isDefinedInSection() || s.type() == Symbol.STT_SECTION || s.type() == Symbol.STT_FILE
                || OutputRelocations.isTextSymbol(s.name())) { // an earlier pass's: names its section's start
            return null;
        }
        MovedFunction m = moved.find(s.value());
        return m == null || !elf.section(s.sectionIndex()).isExecutable() ? null : m;
    }
}
