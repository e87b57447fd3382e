package dev.splice.bat;

import java.util.Arrays;

/**
 * Aggregates profile records by (kind, three addresses) with summed count and mispredictions, in an
 * open-addressing table of primitive longs: memory grows with the number of distinct records, not
 * with the number of input lines.
 */
final class RecordTable {
    private long[] keys = new long[4 * 1024];      // kind, a, b, c per slot
    private long[] values = new long[2 * 1024];    // count, mispreds per slot
    private boolean[] used = new boolean[1024];
    private int size;

    int size() {
        return size;
    }

    void add(long kind, long a, long b, long c, long count, long mispreds) {
        if (size * 2 >= used.length) {
            grow();
        }
        int mask = used.length - 1;
        int slot = hash(kind, a, b, c) & mask;
        while (used[slot]) {
            int k = slot * 4;
            if (keys[k] == kind && keys[k + 1] == a && keys[k + 2] == b && keys[k + 3] == c) {
                values[slot * 2] += count;
                values[slot * 2 + 1] += mispreds;
                return;
            }
            slot = (slot + 1) & mask;
        }
        used[slot] = true;
        int k = slot * 4;
        keys[k] = kind;
        keys[k + 1] = a;
        keys[k + 2] = b;
        keys[k + 3] = c;
        values[slot * 2] = count;
        values[slot * 2 + 1] = mispreds;
        size++;
    }

    private static int hash(long kind, long a, long b, long c) {
        long h = kind * 0x9E3779B97F4A7C15L;
        h = (h ^ a) * 0xC2B2AE3D27D4EB4FL;
        h = (h ^ b) * 0x165667B19E3779F9L;
        h = (h ^ c) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldValues = values;
        boolean[] oldUsed = used;
        keys = new long[oldKeys.length * 2];
        values = new long[oldValues.length * 2];
        used = new boolean[oldUsed.length * 2];
        size = 0;
        for (int i = 0; i < oldUsed.length; i++) {
            if (oldUsed[i]) {
                add(oldKeys[i * 4], oldKeys[i * 4 + 1], oldKeys[i * 4 + 2], oldKeys[i * 4 + 3], oldValues[i * 2], oldValues[i * 2 + 1]);
            }
        }
    }

    /** Visits every record in a deterministic order (sorted by key). */
    void forEach(Visitor v) {
        Integer[] order = new Integer[size];
        int n = 0;
        for (int i = 0; i < used.length; i++) {
            if (used[i]) {
                order[n++] = i;
            }
        }
        Arrays.sort(order, (x, y) -> {
            for (int j = 0; j < 4; j++) {
                int c = Long.compareUnsigned(keys[x * 4 + j], keys[y * 4 + j]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        for (int i : order) {
            v.visit(keys[i * 4], keys[i * 4 + 1], keys[i * 4 + 2], keys[i * 4 + 3], values[i * 2], values[i * 2 + 1]);
        }
    }

    interface Visitor {
        void visit(long kind, long a, long b, long c, long count, long mispreds);
    }
}
