package dev.splice.listing;

/** Allocation-free hexadecimal formatting into StringBuilders (the listing itself uses TextBuffer). */
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
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
            out.append(DIGITS[(int) (value >>> shift) & 15]);
        }
    }

    static String of(long value) {
        StringBuilder sb = new StringBuilder(18).append("0x");
        append(sb, value);
        return sb.toString();
    }
}
