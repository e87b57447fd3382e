package dev.splice.weigh.campaign;

import dev.splice.weigh.campaign.PluginRecords.EncodingCount;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * An immutable list of encoding counts held as two primitive arrays: a formal run's validation
 * records have about 5.6 million of them, 40 bytes each as records in a list, 16 bytes here.
 * Elements are made on access.
 */
final class EncodingCounts extends AbstractList<EncodingCount> implements RandomAccess {
    /** Per element, its size in bytes above bit 32 and its encoding below. */
    private final long[] sizeAndEncoding;
    private final long[] counts;

    private EncodingCounts(long[] sizeAndEncoding, long[] counts) {
        this.sizeAndEncoding = sizeAndEncoding;
        this.counts = counts;
    }

    /** {@return an immutable copy of {@code encodings}, compact (encodings of at most 32 bits, sizes of at most 2^31 - 1)} */
    static List<EncodingCount> of(List<EncodingCount> encodings) {
        if (encodings instanceof EncodingCounts same) {
            return same;
        }
        Builder b = new Builder(encodings.size());
        for (EncodingCount e : encodings) {
            if (e.encoding() < 0 || e.encoding() > 0xffff_ffffL || e.size() < 0) {
                return List.copyOf(encodings); // not from a record file: kept as given
            }
            b.add(e.encoding(), e.size(), e.count());
        }
        return b.build();
    }

    @Override
    public EncodingCount get(int index) {
        long packed = sizeAndEncoding[index];
        return new EncodingCount(packed & 0xffff_ffffL, (int) (packed >>> 32), counts[index]);
    }

    @Override
    public int size() {
        return counts.length;
    }

    /** Collects a known number of elements. */
    static final class Builder {
        private final long[] sizeAndEncoding;
        private final long[] counts;
        private int n;

        Builder(int capacity) {
            sizeAndEncoding = new long[capacity];
            counts = new long[capacity];
        }

        void add(long encoding, int size, long count) {
            sizeAndEncoding[n] = (long) size << 32 | encoding;
            counts[n++] = count;
        }

        /** {@return the last element added, as (size << 32 | encoding), or -1 if none} */
        long lastKey() {
            return n == 0 ? -1 : sizeAndEncoding[n - 1];
        }

        List<EncodingCount> build() {
            if (n != counts.length) {
                throw new IllegalStateException(n + " encodings added, " + counts.length + " announced");
            }
            return new EncodingCounts(sizeAndEncoding, counts);
        }
    }
}
