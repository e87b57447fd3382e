package dev.splice.profile;

/**
 * Sums counts and mispredictions of raw (untranslated) records keyed by two 32-bit addresses, in
 * one open-addressing array of 16-byte slots (packed key; count and mispredictions packed in one
 * long), half the footprint of {@link RecordTable}: the probe per input line is a cache miss, so a
 * smaller table is a faster one. What does not fit (an address above 32 bits, a sum reaching
 * 2^31) is refused and the caller translates that record directly.
 */
final class RawCounts {
    private static final long EMPTY = -1L; // the key of (0xffffffff, 0xffffffff), refused by add
    private static final long LIMIT = 1L << 31;
    private long[] slots = emptySlots(1024);
    private int size;

    private static long[] emptySlots(int count) {
        long[] s = new long[count * 2];
        for (int i = 0; i < s.length; i += 2) {
            s[i] = EMPTY;
        }
        return s;
    }

    int size() {
        return size;
    }

    /** Adds a record, or returns false if it cannot be stored (the caller must handle it). */
    boolean add(long from, long to, long count, long mispreds) {
        if ((from | to) >>> 32 != 0 || count < 0 || mispreds < 0 || count >= LIMIT || mispreds >= LIMIT) {
            return false;
        }
        long key = from << 32 | to;
        if (key == EMPTY) {
            return false;
        }
        if (size * 2 >= slots.length / 2) {
            grow();
        }
        int mask = slots.length / 2 - 1;
        int slot = hash(key) & mask;
        while (true) {
            int i = slot * 2;
            long k = slots[i];
            if (k == EMPTY) {
                slots[i] = key;
                slots[i + 1] = count << 32 | mispreds;
                size++;
                return true;
            }
            if (k == key) {
                long v = slots[i + 1];
                long c = (v >>> 32) + count;
                long m = (v & 0xffffffffL) + mispreds;
                if (c >= LIMIT || m >= LIMIT) {
                    return false;
                }
                slots[i + 1] = c << 32 | m;
                return true;
            }
            slot = (slot + 1) & mask;
        }
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        h ^= h >>> 29;
        h *= 0xbf58476d1ce4e5b9L;
        h ^= h >>> 32;
        return (int) h;
    }

    private void grow() {
        long[] old = slots;
        slots = emptySlots(old.length);
        int mask = slots.length / 2 - 1;
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != EMPTY) {
                int slot = hash(old[i]) & mask;
                while (slots[slot * 2] != EMPTY) {
                    slot = (slot + 1) & mask;
                }
                slots[slot * 2] = old[i];
                slots[slot * 2 + 1] = old[i + 1];
            }
        }
    }

    /** Forgets every record, keeping the current capacity. */
    void clear() {
        for (int i = 0; i < slots.length; i += 2) {
            slots[i] = EMPTY;
        }
        size = 0;
    }

    /** Visits every record: from, to, count, mispredictions. */
    void forEach(RecordTable.Visitor v) {
        for (int i = 0; i < slots.length; i += 2) {
            if (slots[i] != EMPTY) {
                long key = slots[i];
                long value = slots[i + 1];
                v.visit(key >>> 32, key & 0xffffffffL, value >>> 32, value & 0xffffffffL);
            }
        }
    }
}
