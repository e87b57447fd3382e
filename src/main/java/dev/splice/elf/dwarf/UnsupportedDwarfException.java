package dev.splice.elf.dwarf;

/**
 * Debug information that cannot be rewritten exactly for moved code (a form, an encoding or a
 * layout the rewriter does not handle). The message says which section, where and what.
 */
public final class UnsupportedDwarfException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal.
     *
     * @param section the section ({@code .debug_line}, ...)
     * @param offset the offset of the unit, entry or attribute in it
     * @param what what cannot be rewritten and why
     */
    UnsupportedDwarfException(String section, long offset, String what) {
        super(section + " at offset 0x" + Long.toHexString(offset) + ": " + what);
    }
}
