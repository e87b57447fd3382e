package dev.splice.base;

/**
 * Lower-case hexadecimal formatting: of byte arrays (build-ids, note descriptors), and of numbers
 * appended to a StringBuilder without allocating (listings, messages).
 */
public final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {}

    /**
     * The bytes as hex digits, two per byte, in order ({@code {0x12, 0xab}} gives "12ab").
     *
     * @param bytes the bytes
     * @return the digits, without prefix
     */
    public static String of(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = DIGITS[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = DIGITS[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /**
     * A number as unsigned hex with a "0x" prefix ("0x1f", "0x0").
     *
     * @param value the number, taken as unsigned
     * @return the text
     */
    public static String of(long value) {
        StringBuilder sb = new StringBuilder(18).append("0x");
        append(sb, value);
        return sb.toString();
    }

    /**
     * Appends {@code value} as unsigned hex without leading zeros or prefix.
     *
     * @param out where to append
     * @param value the number, taken as unsigned
     */
    public static void append(StringBuilder out, long value) {
        if (value == 0) {
            out.append('0');
            return;
        }
        appendFixed(out, value, ((63 - Long.numberOfLeadingZeros(value)) >> 2) + 1);
    }

    /**
     * Appends the low {@code digits} hex digits of {@code value}, zero-padded.
     *
     * @param out where to append
     * @param value the number
     * @param digits how many digits (at most 16)
     */
    public static void appendFixed(StringBuilder out, long value, int digits) {
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
            out.append(DIGITS[(int) (value >>> shift) & 15]);
        }
    }
}
