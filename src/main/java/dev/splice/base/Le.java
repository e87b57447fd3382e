package dev.splice.base;

/**
 * Little-endian reads and writes on byte arrays, for the ELF reader and for the rewrites that
 * patch machine words and data. Callers check bounds first. Plain shifts rather
 * than byte-array VarHandles: the commands are short runs with C1 only, where VarHandle accesses
 * stay chains of calls (and their first use spins classes at start-up).
 */
public final class Le {
    private Le() {}

    public static int u8(byte[] b, long at) {
        return b[(int) at] & 0xff;
    }

    public static int u16(byte[] b, long at) {
        int i = (int) at;
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8;
    }

    /** An unsigned 32-bit field as a (possibly negative when >= 2^31) int. */
    public static int u32(byte[] b, long at) {
        int i = (int) at;
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | b[i + 3] << 24;
    }

    public static long u32L(byte[] b, long at) {
        return u32(b, at) & 0xffffffffL;
    }

    public static long u64(byte[] b, long at) {
        return u32L(b, at) | (long) u32(b, at + 4) << 32;
    }

    public static void putU16(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }

    public static void putU32(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    public static void putU64(byte[] b, int at, long v) {
        putU32(b, at, (int) v);
        putU32(b, at + 4, (int) (v >>> 32));
    }

    /** A 16-bit value as its two little-endian bytes (a patch's contents). */
    public static byte[] le16(int v) {
        return new byte[] {(byte) v, (byte) (v >>> 8)};
    }

    /** A 32-bit value as its four little-endian bytes. */
    public static byte[] le32(int v) {
        byte[] b = new byte[4];
        putU32(b, 0, v);
        return b;
    }

    /** A 64-bit value as its eight little-endian bytes. */
    public static byte[] le64(long v) {
        byte[] b = new byte[8];
        putU64(b, 0, v);
        return b;
    }
}
