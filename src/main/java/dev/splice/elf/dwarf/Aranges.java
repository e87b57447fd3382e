package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import dev.splice.base.ByteWriter;

/**
 * Rewrites {@code .debug_aranges}: every set keeps its header and its ranges go through the
 * {@link AddressMap} (a range over moved code becomes the new code's ranges).
 */
final class Aranges {
    static final String SECTION = ".debug_aranges";

    private Aranges() {}

    /** The new section, or null when no range covers moved code. */
    static byte[] rewrite(byte[] section, AddressMap map) {
        ByteWriter out = new ByteWriter();
        boolean touched = false;
        int at = 0;
        while (at < section.length) {
            ByteReader r = UnitLength.unit(section, at, SECTION);
            int end = r.position() + r.remaining();
            r.u16(); // version
            r.u32(); // debug_info_offset
            int addressSize = r.u8();
            int segmentSize = r.u8();
            if (addressSize != 8 || segmentSize != 0) {
                throw new UnsupportedDwarfException(SECTION, at, "address size " + addressSize + ", segment size " + segmentSize
                        + " (expected 8 and 0)");
            }
            r.skip((16 - (r.position() - at) % 16) % 16); // tuples are aligned to twice the address size
            ByteWriter set = new ByteWriter();
            set.bytes(section, at + 4, r.position() - at - 4);
            while (true) {
                long from = r.u64();
                long size = r.u64();
                if (from == 0 && size == 0) {
                    break;
                }
                touched |= map.moves(from, from + size);
                map.ranges(from, from + size, (a, b) -> {
                    set.u64(a);
                    set.u64(b - a);
                });
            }
            set.u64(0);
            set.u64(0);
            out.u32(set.size());
            out.bytes(set.toByteArray());
            at = end;
        }
        return touched ? out.toByteArray() : null;
    }
}
