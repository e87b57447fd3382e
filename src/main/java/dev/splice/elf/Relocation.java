package dev.splice.elf;

/** One RELA entry: r_offset, the type and symbol index from r_info, and the addend. */
public record Relocation(long offset, int type, int symbolIndex, long addend) {
    /** Size of one RELA entry in ELF64. */
    public static final int ENTRY_SIZE = 24;

    /** {@return the r_info word as stored} */
    public long info() {
        return ((long) symbolIndex << 32) | (type & 0xffffffffL);
    }

    // equals and hashCode as the record's, written out: the generated ones are linked on first use
    // through method handles, and a short patch run that keys a map by relocations spun 43 classes for it.

    @Override
    public boolean equals(Object o) {
        return o instanceof Relocation r && offset == r.offset && type == r.type && symbolIndex == r.symbolIndex
                && addend == r.addend;
    }

    @Override
    public int hashCode() {
        return ((Long.hashCode(offset) * 31 + type) * 31 + symbolIndex) * 31 + Long.hashCode(addend);
    }
}
