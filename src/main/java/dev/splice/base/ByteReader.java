package dev.splice.base;

import java.nio.charset.StandardCharsets;

/**
 * Reads little-endian fixed-size fields, LEB128 numbers and NUL-terminated strings from a range of
 * a byte array, refusing to read past its end: the bounded input of every binary table Splice
 * parses (BAT, {@code .eh_frame}, LSDAs, attributes). Every error is a {@link BadInputException}
 * that names the source and the byte offset where the bad field starts.
 */
public final class ByteReader {
    private final byte[] bytes;
    private final int end;
    private final String source;
    private int position;

    /**
     * A reader of {@code bytes[start, end)}, positioned at {@code start}.
     *
     * @param bytes the array (not copied)
     * @param start the first byte to read
     * @param end the end of the readable range (exclusive)
     * @param source what the bytes are, for messages ("file: section")
     */
    public ByteReader(byte[] bytes, int start, int end, String source) {
        this.bytes = bytes;
        this.position = start;
        this.end = end;
        this.source = source;
    }

    /** {@return the offset of the next byte to read, in the whole array} */
    public int position() {
        return position;
    }

    /** {@return the number of bytes left before the end of the range} */
    public int remaining() {
        return end - position;
    }

    /** {@return true when every byte of the range has been read} */
    public boolean atEnd() {
        return position >= end;
    }

    /**
     * The refusal of a field: "source: offset N: what".
     *
     * @param offset the offset of the field in the whole array
     * @param what what is wrong
     * @return the exception, for the caller to throw
     */
    public BadInputException error(int offset, String what) {
        return new BadInputException(source + ": offset " + offset + ": " + what);
    }

    /** {@return the next byte, unsigned} */
    public int u8() {
        if (position >= end) {
            throw error(position, "truncated table (expected another byte)");
        }
        return bytes[position++] & 0xff;
    }

    /** {@return the next 16-bit little-endian field, unsigned} */
    public int u16() {
        if (end - position < 2) {
            throw error(position, "truncated table (expected a 2-byte field)");
        }
        int v = (bytes[position] & 0xff) | (bytes[position + 1] & 0xff) << 8;
        position += 2;
        return v;
    }

    /** {@return the next 32-bit little-endian field (negative when it is 2^31 or more)} */
    public int u32() {
        int start = position;
        if (end - position < 4) {
            throw error(start, "truncated table (expected a 4-byte field)");
        }
        int v = (bytes[position] & 0xff) | (bytes[position + 1] & 0xff) << 8
                | (bytes[position + 2] & 0xff) << 16 | (bytes[position + 3] & 0xff) << 24;
        position += 4;
        return v;
    }

    /** {@return the next 64-bit little-endian field} */
    public long u64() {
        int start = position;
        if (end - position < 8) {
            throw error(start, "truncated table (expected an 8-byte field)");
        }
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (bytes[position + i] & 0xff);
        }
        position += 8;
        return v;
    }

    /**
     * The next {@code count} bytes, copied.
     *
     * @param count how many
     * @return a new array of them
     */
    public byte[] bytes(int count) {
        if (count < 0 || end - position < count) {
            throw error(position, "truncated table (expected " + count + " more bytes)");
        }
        byte[] out = new byte[count];
        System.arraycopy(bytes, position, out, 0, count);
        position += count;
        return out;
    }

    /**
     * Skips {@code count} bytes.
     *
     * @param count how many (refused when negative or past the end)
     */
    public void skip(int count) {
        if (count < 0 || end - position < count) {
            throw error(position, "truncated table (expected " + count + " more bytes)");
        }
        position += count;
    }

    /**
     * The NUL-terminated string at the position (UTF-8); the position moves past the NUL.
     *
     * @return the string without its NUL (refused when the range ends before one)
     */
    public String cstring() {
        int start = position;
        int at = position;
        while (at < end && bytes[at] != 0) {
            at++;
        }
        if (at >= end) {
            throw error(start, "string is not NUL-terminated");
        }
        position = at + 1;
        return new String(bytes, start, at - start, StandardCharsets.UTF_8);
    }

    /**
     * An unsigned LEB128 number of up to 64 bits (bits beyond 64 are refused, as LLVM does).
     *
     * @return the value (values of 2^63 and more are negative)
     */
    public long uleb() {
        int start = position;
        long value = 0;
        int shift = 0;
        while (true) {
            if (position >= end) {
                throw error(start, "truncated ULEB128 number");
            }
            int b = bytes[position++] & 0xff;
            long slice = b & 0x7f;
            if (shift >= 64 && slice != 0 || shift == 63 && slice > 1) {
                throw error(start, "ULEB128 number too big for 64 bits");
            }
            value |= slice << shift;
            shift += 7;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
    }

    /**
     * A signed LEB128 number of up to 64 bits (bits beyond 64 other than sign extension are refused).
     *
     * @return the value
     */
    public long sleb() {
        int start = position;
        long value = 0;
        int shift = 0;
        int b;
        do {
            if (position >= end) {
                throw error(start, "truncated SLEB128 number");
            }
            b = bytes[position++] & 0xff;
            long slice = b & 0x7f;
            if (shift >= 64) {
                // Only sign-extension bytes are allowed past bit 63.
                if (slice != (value < 0 ? 0x7f : 0)) {
                    throw error(start, "SLEB128 number too big for 64 bits");
                }
            } else if (shift == 63 && slice != 0 && slice != 0x7f) {
                throw error(start, "SLEB128 number too big for 64 bits");
            } else {
                value |= slice << shift;
            }
            shift += 7;
        } while ((b & 0x80) != 0);
        if (shift < 64 && (b & 0x40) != 0) {
            value |= -1L << shift;
        }
        return value;
    }
}
