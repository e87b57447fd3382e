package dev.splice.patch;

/**
 * Little-endian encodings of the instruction words and data that a rewrite writes. Here rather
 * than shared with {@code dev.splice.elf}'s reader: that package keeps its byte helpers private.
 */
final class LeBytes {
    private LeBytes() {}

    static byte[] le16(int v) {
        return new byte[] {(byte) v, (byte) (v >> 8)};
    }

    static byte[] le32(int v) {
        return new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)};
    }

    static byte[] le64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    static void putU32(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >> 8);
        b[at + 2] = (byte) (v >> 16);
        b[at + 3] = (byte) (v >> 24);
    }
}
