package dev.splice.weigh.system;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/** Sv39 page tables (three levels of 512 eight-byte entries, 4 KiB pages) for a set of leaf mappings. */
final class PageTables {
    private static final int PAGE = 4096;
    private static final long VALID = 1;

    private PageTables() {}

    /**
     * The tables, the root first, laid out from {@code base} on.
     *
     * @param leaves virtual page number (below 2^27) to leaf PTE
     * @param base the physical address of the root table (4 KiB aligned)
     * @return the tables' bytes
     */
    static byte[] build(Map<Long, Long> leaves, long base) {
        Map<Long, Integer> tableOf = new HashMap<>(); // key: level * 2^27 + the vpn bits above the level
        java.util.List<ByteBuffer> tables = new java.util.ArrayList<>();
        tables.add(table());
        for (Map.Entry<Long, Long> e : leaves.entrySet()) {
            long vpn = e.getKey();
            if (vpn < 0 || vpn >= 1L << 27) {
                throw new IllegalArgumentException("virtual page 0x" + Long.toHexString(vpn) + " is outside Sv39's lower half");
            }
            int middle = child(tables, tableOf, 0, 1L << 27 | vpn >> 18, (int) (vpn >> 18) & 511, base);
            int last = child(tables, tableOf, middle, 2L << 27 | vpn >> 9, (int) (vpn >> 9) & 511, base);
            tables.get(last).putLong(8 * (int) (vpn & 511), e.getValue());
        }
        ByteBuffer out = ByteBuffer.allocate(tables.size() * PAGE);
        tables.forEach(t -> out.put(t.array()));
        return out.array();
    }

    /** The index of the table that entry {@code index} of table {@code parent} points to, made on first use. */
    private static int child(java.util.List<ByteBuffer> tables, Map<Long, Integer> tableOf, int parent, long key, int index,
            long base) {
        Integer t = tableOf.get(key);
        if (t == null) {
            t = tables.size();
            tables.add(table());
            tableOf.put(key, t);
            tables.get(parent).putLong(8 * index, ((base + (long) t * PAGE) / PAGE) << 10 | VALID);
        }
        return t;
    }

    private static ByteBuffer table() {
        return ByteBuffer.allocate(PAGE).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The physical address of the leaf PTE of a mapped virtual page in tables {@link #build} made.
     *
     * @param tables the tables' bytes
     * @param base the root table's physical address
     * @param vpn a virtual page number given to {@code build}
     * @return the entry's physical address
     */
    static long leafAddress(byte[] tables, long base, long vpn) {
        ByteBuffer t = ByteBuffer.wrap(tables).order(ByteOrder.LITTLE_ENDIAN);
        long table = base;
        for (int level = 2; level > 0; level--) {
            long entry = t.getLong((int) (table - base) + 8 * (int) ((vpn >> (9 * level)) & 511));
            table = (entry >>> 10) * PAGE;
        }
        return table + 8 * (vpn & 511);
    }
}
