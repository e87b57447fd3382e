package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.dwarf.DebugInfoRewriter;
import dev.splice.elf.dwarf.UnsupportedDwarfException;
import java.util.Map;

/**
 * The metadata stage's DWARF step: the debug sections of an input built with {@code -g} follow
 * the moved code ({@link DebugInfoRewriter} through {@link MovedCodeAddresses}). The sections are
 * not loaded, so a section that grows moves to the end of the file. Relocation sections of a
 * rewritten debug section ({@code --emit-relocs} keeps them) would describe the input's bytes:
 * they are emptied. What cannot be rewritten exactly is refused ({@link PatchException.Reason#DEBUG_INFO}).
 */
final class DebugSections {
    /** gdb's index (gdb-add-index, ld --gdb-index): its address table would name the old code. */
    private static final String GDB_INDEX = ".gdb_index";

    private DebugSections() {}

    /** Rewrites the debug sections of {@code elf} in {@code editor} for the code {@code moved}. */
    static void follow(ElfFile elf, MovedCode moved, ElfEditor editor) {
        if (elf.section(".debug_info").isEmpty() && elf.section(".debug_line").isEmpty() && elf.section(".debug_frame").isEmpty()) {
            return;
        }
        Map<String, byte[]> changed;
        try {
            changed = DebugInfoRewriter.rewrite(name -> elf.section(name).map(elf::contents).orElse(null),
                    new MovedCodeAddresses(moved, elf.name()));
        } catch (UnsupportedDwarfException e) {
            throw new PatchException(PatchException.Reason.DEBUG_INFO, elf.name() + ": " + e.getMessage()
                    + "; the debug information of moved code cannot follow it (strip it with objcopy --strip-debug to patch without it)");
        }
        if (!changed.isEmpty() && elf.section(GDB_INDEX).isPresent()) {
            throw new PatchException(PatchException.Reason.DEBUG_INFO, elf.name() + ": " + GDB_INDEX
                    + " holds an address table of the moved code's old places that the write-back does not rewrite"
                    + " (remove it with objcopy --remove-section=" + GDB_INDEX + "; gdb-add-index can make it again)");
        }
        for (Map.Entry<String, byte[]> e : changed.entrySet()) {
            Section s = elf.section(e.getKey()).orElse(null);
            if (s == null) { // a list section the rewrite made
                editor.addSection(e.getKey(), Section.SHT_PROGBITS, 0, 0, 1, 0, 0, 0, e.getValue());
                continue;
            }
            editor.setContents(s.index(), e.getValue());
            for (Section r : elf.sections()) {
                if (r.type() == Section.SHT_RELA && r.info() == s.index()) {
                    editor.setContents(r.index(), new byte[0]);
                }
            }
        }
    }
}
