package dev.splice.elf;

/**
 * Little-endian reads and writes on byte arrays. Callers check bounds first. Plain shifts rather
 * than byte-array VarHandles: the commands are short runs with C1 only, where VarHandle accesses
 * stay chains of calls (and their first use spins classes at start-up).
 */
final class Le {
    private Le() {}

    static int u8(byte[] b, long at) {
        return b[(int) at] & 0xff;
    }

    static int u16(byte[] b, long at) {
        int i = (int) at;
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8;
    }

    /** An unsigned 32-bit field as a (possibly negative when >= 2^31) int. */
    static int u32(byte[] b, long at) {
        int i = (int) at;
        return (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | b[i + 3] << 24;
    }

    static long u32L(byte[] b, long at) {
        return u32(b, at) & 0xffffffffL;
    }

    static long u64(byte[] b, long at) {
        return u32L(b, at) | (long) u32(b, at + 4) << 32;
    }

    static void putU16(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }

    static void putU32(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    static void putU64(byte[] b, int at, long v) {
        putU32(b, at, (int) v);
        putU32(b, at + 4, (int) (v >>> 32));
    }
}
