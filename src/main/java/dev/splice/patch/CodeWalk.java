package dev.splice.patch;

import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;

/**
 * Walks the instructions of an address range of the input image (linear sweep) without
 * allocating: after each {@link #next()} the fields describe one instruction. Decoding a moved
 * function and finding the last instruction before a function's entry both walk this way.
 */
final class CodeWalk {
    private final InputImage image;
    private final Decoder decoder;
    private final long start;
    private final long end;
    /** The file offset of {@link #start}. */
    private final long offset;
    private long next;

    /** The current instruction's address. */
    long at;
    /** Its size in bytes: 2 or 4, or 0 when the bytes at {@link #at} form no such instruction inside the range. */
    int size;
    /** Its bits (the first parcel when {@link #size} is 0). */
    int bits;
    /** Its opcode, or null when the bits are no instruction of the decoder's extensions. */
    Opcode op;

    CodeWalk(InputImage image, Decoder decoder, long start, long end) {
        this.image = image;
        this.decoder = decoder;
        this.start = start;
        this.end = end;
        this.offset = image.fileOffset(start);
        this.next = start;
    }

    /** Moves to the next instruction; false at the end of the range, and after an item of {@link #size} 0. */
    boolean next() {
        at = next;
        if (at >= end) {
            return false;
        }
        long o = offset + (at - start);
        int parcel = image.u16(o);
        int length = Decoder.length(parcel);
        if (length != 2 && length != 4 || at + length > end) {
            size = 0;
            bits = parcel;
            op = null;
            next = end;
            return true;
        }
        size = length;
        bits = length == 2 ? parcel : (int) image.u32(o);
        op = decoder.decode(bits, length);
        next = at + length;
        return true;
    }
}
