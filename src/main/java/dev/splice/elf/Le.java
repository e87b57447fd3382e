package dev.splice.elf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Little-endian reads and writes on byte arrays. Callers check bounds first. */
final class Le {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Le() {}

    static int u8(byte[] b, long at) {
        return b[(int) at] & 0xff;
    }

    static int u16(byte[] b, long at) {
        return (short) SHORT.get(b, (int) at) & 0xffff;
    }

    /** An unsigned 32-bit field as a (possibly negative when >= 2^31) int. */
    static int u32(byte[] b, long at) {
        return (int) INT.get(b, (int) at);
    }

    static long u32L(byte[] b, long at) {
        return ((int) INT.get(b, (int) at)) & 0xffffffffL;
    }

    static long u64(byte[] b, long at) {
        return (long) LONG.get(b, (int) at);
    }

    static void putU16(byte[] b, int at, int v) {
        SHORT.set(b, at, (short) v);
    }

    static void putU32(byte[] b, int at, int v) {
        INT.set(b, at, v);
    }

    static void putU64(byte[] b, int at, long v) {
        LONG.set(b, at, v);
    }
}
