package dev.splice.base;


/**
 * Reads little-endian fixed-size fields and LEB128 numbers from a byte array, refusing to read past
 * the end. Every error names the source and the byte offset where the bad field starts.
 */
public final class ByteReader {
    private final byte[] bytes;
    private final int end;
    private final String source;
    private int position;

    public ByteReader(byte[] bytes, int start, int end, String source) {
        this.bytes = bytes;
        this.position = start;
        this.end = end;
        this.source = source;
    }

    public int position() {
        return position;
    }

    public int remaining() {
        return end - position;
    }

    public boolean atEnd() {
        return position >= end;
    }

    public BadInputException error(int offset, String what) {
        return new BadInputException(source + ": offset " + offset + ": " + what);
    }

    public int u8() {
        if (position >= end) {
            throw error(position, "truncated table (expected another byte)");
        }
        return bytes[position++] & 0xff;
    }

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

    public byte[] bytes(int count) {
        if (count < 0 || end - position < count) {
            throw error(position, "truncated table (expected " + count + " more bytes)");
        }
        byte[] out = new byte[count];
        System.arraycopy(bytes, position, out, 0, count);
        position += count;
        return out;
    }

    void skip(int count) {
        if (count < 0 || end - position < count) {
            throw error(position, "truncated table (expected " + count + " more bytes)");
        }
        position += count;
    }

    /** An unsigned LEB128 number of up to 64 bits (bits beyond 64 are refused, as LLVM does). */
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

    /** A signed LEB128 number of up to 64 bits. */
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
