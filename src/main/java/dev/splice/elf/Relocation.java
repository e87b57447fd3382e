package dev.splice.elf;

/** One RELA entry: r_offset, the type and symbol index from r_info, and the addend. */
public record Relocation(long offset, int type, int symbolIndex, long addend) {
    /** Size of one RELA entry in ELF64. */
    public static final int ENTRY_SIZE = 24;

    /** {@return the r_info word as stored} */
    public long info() {
        return ((long) symbolIndex << 32) | (type & 0xffffffffL);
    }
}
