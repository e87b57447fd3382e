package dev.splice.listing;

/** Allocation-free hexadecimal formatting for the hot printing paths. */
final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {}

    /** Appends {@code value} as unsigned hex without leading zeros or prefix. */
    static void append(StringBuilder out, long value) {
        if (value == 0) {
            out.append('0');
            return;
        }
        appendFixed(out, value, ((63 - Long.numberOfLeadingZeros(value)) >> 2) + 1);
    }

    /** Appends the low {@code digits} hex digits of {@code value}, zero-padded. */
    static void appendFixed(StringBuilder out, long value, int digits) {
        char[] chars = SCRATCH.get();
        for (int i = digits - 1; i >= 0; i--) {
            chars[i] = DIGITS[(int) value & 15];
            value >>>= 4;
        }
        out.append(chars, 0, digits);
    }

    /** Per-thread scratch digits: one append per number instead of one per digit. */
    private static final ThreadLocal<char[]> SCRATCH = ThreadLocal.withInitial(() -> new char[16]);

    static String of(long value) {
        StringBuilder sb = new StringBuilder(18).append("0x");
        append(sb, value);
        return sb.toString();
    }
}
