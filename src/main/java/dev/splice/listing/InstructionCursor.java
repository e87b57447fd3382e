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
    /** Packed decode results of the sweep from {@link #nextItem} on, or null to decode here. */
    private final int[] items;
    private int nextItem;
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
        this(bytes, decoder, null, 0, start, end);
    }

    /**
     * A cursor over items already decoded ({@link Decoder#decodeAll} of the whole sweep):
     * {@code items[firstItem]} is the item at {@code start}.
     */
    InstructionCursor(byte[] bytes, Decoder decoder, int[] items, int firstItem, int start, int end) {
        this.bytes = bytes;
        this.limit = end;
        this.decoder = decoder;
        this.items = items;
        this.nextItem = firstItem;
        this.next = start;
    }

    boolean advance() {
        offset = next;
        if (offset >= limit) {
            return false;
        }
        int packed = items != null ? items[nextItem++] : decoder.decodeAt(bytes, offset, limit);
        size = Decoder.size(packed);
        opcode = decoder.opcode(packed);
        if (Decoder.isLoose(packed)) {
            kind = Kind.BYTES;
            bits = 0;
        } else {
            kind = opcode == null ? Kind.RAW : Kind.INSTRUCTION;
            long value = (bytes[offset] & 0xff) | (bytes[offset + 1] & 0xff) << 8;
            for (int i = size - 1; i >= 2; i--) { // 32-bit and longer words
                value |= (bytes[offset + i] & 0xffL) << (8 * i);
            }
            bits = value;
        }
        next = offset + size;
        return true;
    }

    byte byteAt(int index) {
        return bytes[index];
    }
}
