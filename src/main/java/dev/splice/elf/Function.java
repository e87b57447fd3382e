package dev.splice.elf;

/** A function of the binary, from a FUNC symbol: its code is [address, address + size) in {@code section}. */
public record Function(String name, long address, long size, Section section) {
    public boolean contains(long a) {
        return a == address || (a - address >= 0 && a - address < size);
    }

    public long endAddress() {
        return address + size;
    }
}
