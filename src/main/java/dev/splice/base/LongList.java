package dev.splice.base;

import java.util.Arrays;

/** A growable list of primitive longs, reused on hot paths to avoid boxing. */
public final class LongList {
    private long[] values = new long[16];
    private int size;

    /** An empty list. */
    public LongList() {}

    /**
     * Appends a value.
     *
     * @param v the value
     */
    public void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    /**
     * The value at an index.
     *
     * @param i the index, below {@link #size()}
     * @return the value
     */
    public long get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return values[i];
    }

    /** {@return the number of values} */
    public int size() {
        return size;
    }

    /** Removes every value (the storage is kept for reuse). */
    public void clear() {
        size = 0;
    }
}
