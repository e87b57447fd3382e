package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;

/** The unit_length field that starts every unit, set and contribution of a DWARF section (32-bit format). */
final class UnitLength {
    private UnitLength() {}

    /**
     * A reader of the unit at {@code offset}: from after its length field to its end.
     *
     * @throws UnsupportedDwarfException for 64-bit DWARF
     */
    static ByteReader unit(byte[] section, int offset, String name) {
        ByteReader r = new ByteReader(section, offset, section.length, name);
        long length = r.u32() & 0xffffffffL;
        if (length >= 0xfffffff0L) {
            throw new UnsupportedDwarfException(name, offset, "64-bit DWARF is not handled");
        }
        if (length > r.remaining()) {
            throw r.error(offset, "unit length " + length + " runs past the section's end");
        }
        return new ByteReader(section, r.position(), r.position() + (int) length, name);
    }
}
