package dev.splice.elf;

/** A function of the binary, from a FUNC symbol: its code is [address, address + size) in {@code section}. */
public record Function(String name, long address, long size, Section section) {
    /**
     * Whether the function holds an address (a function of size 0 holds its start).
     *
     * @param a an address
     * @return true when {@code a} lies in [address, address + size)
     */
    public boolean contains(long a) {
        return a == address || (a - address >= 0 && a - address < size);
    }

    /** {@return the first address after the function} */
    public long endAddress() {
        return address + size;
    }
}
