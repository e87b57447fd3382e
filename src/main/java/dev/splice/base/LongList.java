package dev.splice.base;

import java.util.Arrays;

/** A growable list of primitive longs, reused on hot paths to avoid boxing. */
public final class LongList {
    private long[] values = new long[16];
    private int size;

    public void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    public long get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return values[i];
    }

    public int size() {
        return size;
    }

    public void clear() {
        size = 0;
    }
}
