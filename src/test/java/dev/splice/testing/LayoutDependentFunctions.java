package dev.splice.testing;

import java.util.Set;

/**
 * Functions of glibc and libgcc whose work depends on the binary's layout, not on its code, so that
 * the same run executes them differently on a Splice output than on its input: glibc's
 * {@code _dl_find_object} set-up and {@code _dl_non_dynamic_init} walk the program headers (the
 * output's table has one more PT_LOAD, and its loop runs once more per entry), and libgcc's unwinder
 * sorts and searches the FDEs by address (the moved functions' FDEs now sort last) and interprets the
 * rewritten CFA programs (moved code is longer, so its advances take other opcodes). Tests that
 * compare a run of the output with a run of the input, block for block, leave them out.
 */
public final class LayoutDependentFunctions {
    /** The functions (static glibc and libgcc names). */
    public static final Set<String> NAMES = Set.of("_dlfo_process_initial", "_dl_find_object_from_map",
            "_dl_non_dynamic_init", "_dlfo_sort_mappings.part.0", "fde_single_encoding_compare", "frame_downheap",
            "frame_heapsort", "read_encoded_value_with_base", "search_object", "add_fdes", "classify_object_over_fdes",
            "execute_cfa_program", "get_cie_encoding");

    private LayoutDependentFunctions() {}
}
