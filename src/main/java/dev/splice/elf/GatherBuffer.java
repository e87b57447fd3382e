package dev.splice.elf;

import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of a file being laid out, appended in order: slices of arrays that already exist and
 * zero gaps. They are copied once, into an array of the final size ({@link #toByteArray}), instead
 * of into a buffer sized for the worst case and then into the result (an output of a few
 * megabytes otherwise costs twice its size in short-lived memory). The arrays are not copied when
 * appended: they must not change before {@link #toByteArray}.
 */
final class GatherBuffer {
    private record Slice(byte[] source, int offset, int length, long at) {}

    private final List<Slice> slices = new ArrayList<>();
    private long size;

    /** {@return the number of bytes appended so far} */
    long size() {
        return size;
    }

    /** Appends {@code source[offset, offset + length)}. */
    void write(byte[] source, int offset, int length) {
        if (length > 0) {
            slices.add(new Slice(source, offset, length, size));
            size += length;
        }
    }

    /** Appends zeros up to {@code end} (nothing when the buffer is that long already). */
    void zerosTo(long end) {
        size = Math.max(size, end);
    }

    /** {@return the bytes appended, in one new array} */
    byte[] toByteArray() {
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("the output would be " + size + " bytes, more than an array holds");
        }
        byte[] out = new byte[(int) size];
        for (Slice s : slices) {
            System.arraycopy(s.source, s.offset, out, (int) s.at, s.length);
        }
        return out;
    }
}
