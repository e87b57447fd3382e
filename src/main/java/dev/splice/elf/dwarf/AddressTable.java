package dev.splice.elf.dwarf;

import dev.splice.base.Le;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code .debug_addr} (DWARF 5): the addresses that {@code DW_FORM_addrx*}, {@code DW_OP_addrx}
 * and the {@code DW_RLE_}/{@code DW_LLE_*x} list entries name by index from a unit's
 * {@code DW_AT_addr_base}. An entry is rewritten in place, to the value every use of it needs in
 * the output: each use claims a value (a start, an end, or its old value when nothing it names
 * moved), and two uses of one entry that now need different values are refused (clang shares an
 * entry between every use of one label).
 */
final class AddressTable {
    /** The section's name. */
    static final String SECTION = ".debug_addr";
    private static final int ADDRESS_SIZE = 8;

    private final byte[] section;
    private final AddressMap map;
    /** The value each claimed entry gets, by its offset in the section. */
    private final Map<Integer, Long> claims = new HashMap<>();

    /**
     * @param section the bytes of .debug_addr, or null when the binary has none
     * @param map where the code went
     */
    AddressTable(byte[] section, AddressMap map) {
        this.section = section;
        this.map = map;
    }

    /** The entries of the unit whose {@code DW_AT_addr_base} is {@code base} (-1: the unit has none). */
    Slots unit(long base) {
        return new Slots(base);
    }

    /** The new bytes of the section, or null when no entry changes. */
    byte[] bytes() {
        if (section == null || claims.isEmpty()) {
            return null;
        }
        byte[] b = section.clone();
        claims.forEach((at, value) -> Le.putU64(b, at, value));
        return Arrays.equals(b, section) ? null : b;
    }

    /** One unit's entries, by index. */
    final class Slots {
        private final long base;

        private Slots(long base) {
            this.base = base;
        }

        /** The old address of entry {@code index}; {@code section} and {@code at} name the user in refusals. */
        long address(long index, String user, long at) {
            return Le.u64(section, slot(index, user, at));
        }

        /**
         * Claims {@code value} for entry {@code index}.
         *
         * @throws UnsupportedDwarfException when another use of the entry claimed another value
         */
        void claim(long index, long value, String user, long at) {
            int slot = slot(index, user, at);
            Long had = claims.putIfAbsent(slot, value);
            if (had != null && had != value) {
                throw new UnsupportedDwarfException(user, at, "the .debug_addr entry " + index + " (0x"
                        + Long.toHexString(Le.u64(section, slot)) + ") is used where the output needs 0x" + Long.toHexString(had)
                        + " and where it needs 0x" + Long.toHexString(value) + " (one address that now starts and ends different code)");
            }
        }

        /** Claims entry {@code index} for a use that names where execution starts ({@code DW_OP_addrx}). */
        void claimStart(long index, String user, long at) {
            long old = address(index, user, at);
            claim(index, map.moves(old, old + 1) ? map.start(old) : old, user, at);
        }

        private int slot(long index, String user, long at) {
            if (section == null || base < 0) {
                throw new UnsupportedDwarfException(user, at, "an address through .debug_addr (index " + index + ") in a unit "
                        + (section == null ? "of a binary without .debug_addr" : "without DW_AT_addr_base"));
            }
            long slot = base + index * ADDRESS_SIZE;
            if (index < 0 || index > section.length / ADDRESS_SIZE || slot + ADDRESS_SIZE > section.length) {
                throw new UnsupportedDwarfException(user, at, "the .debug_addr entry " + index + " lies outside the section");
            }
            return (int) slot;
        }
    }
}
