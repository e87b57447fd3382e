package dev.splice.base;

import java.util.Arrays;

/** A growable little-endian byte buffer with LEB128 writers, as LLVM's encoders write them. */
public final class ByteWriter {
    private byte[] bytes = new byte[256];
    private int size;

    int size() {
        return size;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    void u8(int v) {
        ensure(1);
        bytes[size++] = (byte) v;
    }

    public void u32(int v) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            bytes[size++] = (byte) (v >>> (8 * i));
        }
    }

    public void u64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (v >>> (8 * i));
        }
    }

    public void bytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
    }

    /** Unsigned LEB128 of a 64-bit value taken as unsigned (a negative long takes 10 bytes). */
    public void uleb(long v) {
        do {
            int b = (int) (v & 0x7f);
            v >>>= 7;
            u8(v != 0 ? b | 0x80 : b);
        } while (v != 0);
    }

    /** Signed LEB128, shortest form. */
    public void sleb(long v) {
        boolean more;
        do {
            int b = (int) (v & 0x7f);
            v >>= 7;
            more = !((v == 0 && (b & 0x40) == 0) || (v == -1 && (b & 0x40) != 0));
            u8(more ? b | 0x80 : b);
        } while (more);
    }

    public void padTo(int alignment) {
        while (size % alignment != 0) {
            u8(0);
        }
    }
}
