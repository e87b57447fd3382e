package dev.splice.profile;

/**
 * Aggregates records keyed by two longs with a summed count and misprediction count, in one
 * interleaved open-addressing array (key, key, count, mispreds per slot: one cache line per probe).
 * Memory grows with the number of distinct keys only.
 */
final class RecordTable {
    private static final long EMPTY = Long.MIN_VALUE; // never a first key: function indices are small
    private long[] slots = emptySlots(1024);
    private int size;

    private static long[] emptySlots(int count) {
        long[] s = new long[count * 4];
        for (int i = 0; i < s.length; i += 4) {
            s[i] = EMPTY;
        }
        return s;
    }

    int size() {
        return size;
    }

    void add(long k1, long k2, long count, long mispreds) {
        if (size * 2 >= slots.length / 4) {
            grow();
        }
        int mask = slots.length / 4 - 1;
        int slot = hash(k1, k2) & mask;
        while (true) {
            int i = slot * 4;
            long key = slots[i];
            if (key == EMPTY) {
                slots[i] = k1;
                slots[i + 1] = k2;
                slots[i + 2] = count;
                slots[i + 3] = mispreds;
                size++;
                return;
            }
            if (key == k1 && slots[i + 1] == k2) {
                slots[i + 2] += count;
                slots[i + 3] += mispreds;
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    private static int hash(long k1, long k2) {
        long h = k1 * 0x9E3779B97F4A7C15L + k2;
        // murmur3's 64-bit finalizer: every input bit reaches the low bits used for the slot.
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h;
    }

    private void grow() {
        long[] old = slots;
        slots = emptySlots(old.length / 4 * 2);
        size = 0;
        for (int i = 0; i < old.length; i += 4) {
            if (old[i] != EMPTY) {
                add(old[i], old[i + 1], old[i + 2], old[i + 3]);
            }
        }
    }

    /** Visits every record (in table order, which depends only on the records added). */
    void forEach(Visitor v) {
        for (int i = 0; i < slots.length; i += 4) {
            if (slots[i] != EMPTY) {
                v.visit(slots[i], slots[i + 1], slots[i + 2], slots[i + 3]);
            }
        }
    }

    interface Visitor {
        void visit(long k1, long k2, long count, long mispreds);
    }
}
