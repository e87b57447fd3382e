package dev.splice.base;

import java.util.Arrays;

/** A growable little-endian byte buffer with LEB128 writers, as LLVM's encoders write them. */
public final class ByteWriter {
    private byte[] bytes = new byte[256];
    private int size;

    /** An empty buffer. */
    public ByteWriter() {}

    /** {@return the number of bytes written so far} */
    public int size() {
        return size;
    }

    /** {@return a copy of the bytes written so far} */
    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    /**
     * Appends one byte.
     *
     * @param v the byte (only the low 8 bits are written)
     */
    public void u8(int v) {
        ensure(1);
        bytes[size++] = (byte) v;
    }

    /**
     * Appends a 16-bit field, little-endian.
     *
     * @param v the value (only the low 16 bits are written)
     */
    public void u16(int v) {
        ensure(2);
        bytes[size++] = (byte) v;
        bytes[size++] = (byte) (v >>> 8);
    }

    /**
     * Appends a 32-bit field, little-endian.
     *
     * @param v the value
     */
    public void u32(int v) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            bytes[size++] = (byte) (v >>> (8 * i));
        }
    }

    /**
     * Appends a 64-bit field, little-endian.
     *
     * @param v the value
     */
    public void u64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (v >>> (8 * i));
        }
    }

    /**
     * Appends bytes.
     *
     * @param b the bytes to copy
     */
    public void bytes(byte[] b) {
        bytes(b, 0, b.length);
    }

    /**
     * Appends a range of bytes.
     *
     * @param b the array
     * @param from the first byte to copy
     * @param count how many
     */
    public void bytes(byte[] b, int from, int count) {
        ensure(count);
        System.arraycopy(b, from, bytes, size, count);
        size += count;
    }

    /**
     * Appends an unsigned LEB128 number, shortest form.
     *
     * @param v the value, taken as unsigned (a negative long takes 10 bytes)
     */
    public void uleb(long v) {
        do {
            int b = (int) (v & 0x7f);
            v >>>= 7;
            u8(v != 0 ? b | 0x80 : b);
        } while (v != 0);
    }

    /**
     * Appends a signed LEB128 number, shortest form.
     *
     * @param v the value
     */
    public void sleb(long v) {
        boolean more;
        do {
            int b = (int) (v & 0x7f);
            v >>= 7;
            more = !((v == 0 && (b & 0x40) == 0) || (v == -1 && (b & 0x40) != 0));
            u8(more ? b | 0x80 : b);
        } while (more);
    }

    /**
     * Appends zero bytes up to a multiple of {@code alignment}.
     *
     * @param alignment the alignment in bytes (positive)
     */
    public void padTo(int alignment) {
        while (size % alignment != 0) {
            u8(0);
        }
    }
}
