package dev.splice.isa;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable buffer of ASCII text as bytes, for the printing hot paths: listings are ASCII, so
 * appending bytes skips the char-to-byte encoding of a StringBuilder and the String copies, and
 * numbers are formatted in place without allocating.
 */
public final class TextBuffer {
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** Every byte value as two hex digits: one table read per byte of a fixed-width number. */
    private static final short[] BYTE_HEX = new short[256];

    static {
        for (int i = 0; i < 256; i++) {
            BYTE_HEX[i] = (short) (DIGITS[i >>> 4] << 8 | DIGITS[i & 15]);
        }
    }

    private static final byte[] SPACES = " ".repeat(64).getBytes(StandardCharsets.US_ASCII);

    private byte[] bytes;
    private int length;

    /**
     * An empty buffer.
     *
     * @param capacity the initial capacity in bytes (it grows as needed)
     */
    public TextBuffer(int capacity) {
        bytes = new byte[Math.max(16, capacity)];
    }

    /**
     * The text as ASCII bytes: characters outside ASCII become '?', as when a listing line was
     * encoded to ISO-8859-1 and its high bytes replaced (a surrogate pair becomes one '?').
     *
     * @param text any text
     * @return its bytes
     */
    public static byte[] ascii(String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < b.length; i++) {
            if (b[i] < 0) {
                b[i] = '?';
            }
        }
        return b;
    }

    /** {@return the number of bytes of text} */
    public int length() {
        return length;
    }

    /**
     * Truncates to {@code newLength}, or ends a {@link #claim}ed stretch (at most its end).
     *
     * @param newLength the new length
     */
    public void setLength(int newLength) {
        length = newLength;
    }

    /** Makes room for {@code more} bytes (small, so that the JIT inlines it everywhere). */
    private void reserve(int more) {
        if (length + more > bytes.length) {
            grow(more);
        }
    }

    private void grow(int more) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
    }

    /**
     * Appends one byte.
     *
     * @param b an ASCII character
     * @return this buffer
     */
    public TextBuffer append(byte b) {
        reserve(1);
        bytes[length++] = b;
        return this;
    }

    /**
     * Appends the bytes of {@code text}.
     *
     * @param text ASCII text
     * @return this buffer
     */
    public TextBuffer append(byte[] text) {
        int n = text.length;
        if (n > 8) {
            return append(text, 0, n);
        }
        // Names and punctuation are short: storing their bytes beats an arraycopy call for them.
        reserve(8);
        byte[] b = bytes;
        int at = length;
        for (int i = 0; i < n; i++) {
            b[at + i] = text[i];
        }
        length = at + n;
        return this;
    }

    /**
     * Appends {@code count} bytes of {@code text} from {@code from}.
     *
     * @param text ASCII text
     * @param from the first byte
     * @param count the number of bytes
     * @return this buffer
     */
    public TextBuffer append(byte[] text, int from, int count) {
        reserve(count);
        System.arraycopy(text, from, bytes, length, count);
        length += count;
        return this;
    }

    /**
     * Appends the text, each character outside ASCII as '?' (see {@link #ascii}).
     *
     * @param text any text
     * @return this buffer
     */
    public TextBuffer append(String text) {
        int n = text.length();
        reserve(n);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                return append(ascii(text.substring(i)));
            }
            bytes[length++] = (byte) c;
        }
        return this;
    }

    /**
     * Appends spaces.
     *
     * @param count how many
     * @return this buffer
     */
    public TextBuffer spaces(int count) {
        if (count > SPACES.length) {
            return spaces(SPACES.length).spaces(count - SPACES.length);
        }
        return append(SPACES, 0, count);
    }

    /**
     * Appends the signed decimal form of {@code value}, as {@link StringBuilder#append(long)}.
     *
     * @param value any value
     * @return this buffer
     */
    public TextBuffer appendDecimal(long value) {
        if (value == Long.MIN_VALUE) {
            return append("-9223372036854775808");
        }
        reserve(20);
        if (value < 0) {
            bytes[length++] = '-';
            value = -value;
        }
        if (value < SMALL) {
            return appendSmall((int) value);
        }
        int digits = 0;
        for (long v = value; v != 0; v /= 10) {
            digits++;
        }
        int at = length + digits;
        length = at;
        while (value != 0) {
            bytes[--at] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return this;
    }

    /** Below this, decimal digits come from multiplications instead of divisions (immediates). */
    private static final int SMALL = 65536;

    /** Appends 0 <= value < {@link #SMALL} in decimal; room is reserved. */
    private TextBuffer appendSmall(int value) {
        int digits = value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : value < 10000 ? 4 : 5;
        int at = length + digits;
        length = at;
        byte[] b = bytes;
        do {
            int quotient = (value * 52429) >>> 19; // value / 10 for value < 81920
            b[--at] = (byte) ('0' + value - quotient * 10);
            value = quotient;
        } while (value != 0);
        return this;
    }

    /**
     * Appends {@code value} as unsigned hex without leading zeros or prefix ("0" for zero).
     *
     * @param value any value
     * @return this buffer
     */
    public TextBuffer appendHex(long value) {
        int digits = value == 0 ? 1 : ((63 - Long.numberOfLeadingZeros(value)) >> 2) + 1;
        return appendHex(value, digits);
    }

    /**
     * Appends the low {@code digits} (at most 16) hex digits of {@code value}, zero-padded.
     *
     * @param value any value
     * @param digits how many digits
     * @return this buffer
     */
    public TextBuffer appendHex(long value, int digits) {
        reserve(digits);
        length = putHex(bytes, length, value, digits);
        return this;
    }

    /**
     * Writes the low {@code digits} hex digits of {@code value} into {@code b} at {@code at} and
     * returns the position after them (for callers that fill a {@link #claim}ed stretch).
     *
     * @param b the array ({@link #array()})
     * @param at where the digits go
     * @param value any value
     * @param digits how many digits
     * @return the position after the digits
     */
    public static int putHex(byte[] b, int at, long value, int digits) {
        int end = at + digits;
        int i = end;
        for (; digits >= 2; digits -= 2) {
            short pair = BYTE_HEX[(int) value & 0xff];
            b[--i] = (byte) pair;
            b[--i] = (byte) (pair >>> 8);
            value >>>= 8;
        }
        if (digits == 1) {
            b[--i] = DIGITS[(int) value & 15];
        }
        return end;
    }

    /**
     * Makes room for {@code count} bytes and returns the current length: the caller writes up to
     * that many bytes into {@link #array()} from there, then calls {@link #setLength} with the end. For the
     * fixed parts of a listing line, one capacity check instead of one per piece.
     *
     * @param count the most bytes the caller writes
     * @return where they go in {@link #array()}
     */
    public int claim(int count) {
        reserve(count);
        return length;
    }

    /** {@return the backing array (valid until the next append or claim)} */
    public byte[] array() {
        return bytes;
    }

    /**
     * Copies {@code count} bytes of the text from {@code from} into {@code target}.
     *
     * @param from the first byte of the text
     * @param target the array to copy into
     * @param at where they go in it
     * @param count how many bytes
     */
    public void copyTo(int from, byte[] target, int at, int count) {
        System.arraycopy(bytes, from, target, at, count);
    }

    /**
     * Writes the text to {@code out} and empties the buffer.
     *
     * @param out where the text goes
     * @throws IOException if writing fails
     */
    public void drainTo(OutputStream out) throws IOException {
        out.write(bytes, 0, length);
        length = 0;
    }

    /** {@return the text as a String (for callers of the StringBuilder printing API)} */
    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
    }
}
