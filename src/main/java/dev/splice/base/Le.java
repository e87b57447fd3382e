package dev.splice.base;

/**
 * Little-endian reads and writes on byte arrays, for the ELF reader and for the rewrites that
 * patch machine words and data. Callers check bounds first. Plain shifts rather
 * than byte-array VarHandles: the commands are short runs with C1 only, where VarHandle accesses
 * stay chains of calls (and their first use spins classes at start-up).
 */
public final class Le {
    private Le() {}

    /**
     * One byte, unsigned.
     *
     * @param b the bytes
     * @param at the offset
     * @return the byte's value, 0 to 255
     */
    public static int u8(byte[] b, long at) {
        return b[(int) at] & 0xff;
    }

    /**
     * A 16-bit little-endian field, unsigned.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @return the value, 0 to 65535
     */
    public static int u16(byte[] b, long at) {
        int i = (int) at;
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8;
    }

    /**
     * A 32-bit little-endian field.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @return the value as an int (negative when it is 2^31 or more)
     */
    public static int u32(byte[] b, long at) {
        int i = (int) at;
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | b[i + 3] << 24;
    }

    /**
     * A 32-bit little-endian field, unsigned.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @return the value, 0 to 2^32 - 1
     */
    public static long u32L(byte[] b, long at) {
        return u32(b, at) & 0xffffffffL;
    }

    /**
     * A 64-bit little-endian field.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @return the value
     */
    public static long u64(byte[] b, long at) {
        return u32L(b, at) | (long) u32(b, at + 4) << 32;
    }

    /**
     * Writes a 16-bit little-endian field.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @param v the value (its low 16 bits)
     */
    public static void putU16(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }

    /**
     * Writes a 32-bit little-endian field.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @param v the value
     */
    public static void putU32(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    /**
     * Writes a 64-bit little-endian field.
     *
     * @param b the bytes
     * @param at the offset of its first byte
     * @param v the value
     */
    public static void putU64(byte[] b, int at, long v) {
        putU32(b, at, (int) v);
        putU32(b, at + 4, (int) (v >>> 32));
    }

    /**
     * A 16-bit value as its two little-endian bytes (a patch's contents).
     *
     * @param v the value (its low 16 bits)
     * @return a new array of 2 bytes
     */
    public static byte[] le16(int v) {
        return new byte[] {(byte) v, (byte) (v >>> 8)};
    }

    /**
     * A 32-bit value as its four little-endian bytes.
     *
     * @param v the value
     * @return a new array of 4 bytes
     */
    public static byte[] le32(int v) {
        byte[] b = new byte[4];
        putU32(b, 0, v);
        return b;
    }

    /**
     * A 64-bit value as its eight little-endian bytes.
     *
     * @param v the value
     * @return a new array of 8 bytes
     */
    public static byte[] le64(long v) {
        byte[] b = new byte[8];
        putU64(b, 0, v);
        return b;
    }
}
