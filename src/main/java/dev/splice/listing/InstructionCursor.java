package dev.splice.listing;

import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;

/**
 * Walks a byte array instruction by instruction (linear sweep) without allocating: after each
 * {@link #advance()} the fields describe one item, a decoded instruction, a raw instruction word
 * (invalid, reserved or 48/64-bit) or loose bytes that cannot form an instruction.
 */
final class InstructionCursor {
    enum Kind { INSTRUCTION, RAW, BYTES }

    private final byte[] bytes;
    private final int limit;
    private final Decoder decoder;
    private int next;

    /** Offset of the current item in the byte array. */
    int offset;
    Kind kind;
    /** Size of the current item in bytes. */
    int size;
    /** The instruction word (little-endian value of the item's bytes; up to 8 bytes). */
    long bits;
    /** The decoded opcode when kind is INSTRUCTION, else null. */
    Opcode opcode;

    InstructionCursor(byte[] bytes, Decoder decoder) {
        this(bytes, decoder, 0, bytes.length);
    }

    /** A cursor over bytes[start, end): start must be an instruction boundary of the full sweep. */
    InstructionCursor(byte[] bytes, Decoder decoder, int start, int end) {
        this.bytes = bytes;
        this.limit = end;
        this.decoder = decoder;
        this.next = start;
    }

    boolean advance() {
        offset = next;
        int left = limit - offset;
        if (left <= 0) {
            return false;
        }
        opcode = null;
        if (left < 2) {
            loose(left);
        } else {
            int parcel = (bytes[offset] & 0xff) | (bytes[offset + 1] & 0xff) << 8;
            int length = Decoder.length(parcel);
            if (length == 2) {
                bits = parcel;
                size = 2;
                opcode = decoder.decode(parcel, 2);
                kind = opcode == null ? Kind.RAW : Kind.INSTRUCTION;
            } else if (length == 4 && left >= 4) {
                int word = parcel | (bytes[offset + 2] & 0xff) << 16 | (bytes[offset + 3] & 0xff) << 24;
                bits = word & 0xffffffffL;
                size = 4;
                opcode = decoder.decode(word, 4);
                kind = opcode == null ? Kind.RAW : Kind.INSTRUCTION;
            } else if ((length == 6 || length == 8) && left >= length) {
                long value = 0;
                for (int i = length - 1; i >= 0; i--) {
                    value = value << 8 | (bytes[offset + i] & 0xff);
                }
                bits = value;
                size = length;
                kind = Kind.RAW;
            } else if (length > 0) {
                loose(left); // a truncated instruction at the end
            } else {
                loose(2); // the reserved >= 80-bit length encodings
            }
        }
        next = offset + size;
        return true;
    }

    private void loose(int count) {
        kind = Kind.BYTES;
        size = count;
        bits = 0;
    }

    byte byteAt(int index) {
        return bytes[index];
    }
}
