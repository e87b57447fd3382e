package dev.splice.isa;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Decodes instruction words for a set of enabled extensions. 16-bit words are looked up in a table
 * filled once for all 65,536 parcels; 32-bit words dispatch on the major opcode, funct3 and funct7
 * bits to a short list of candidates. Nothing is allocated per decode.
 */
public final class Decoder {
    private static final Opcode[] NONE = new Opcode[0];

    private final Opcode[] compressed = new Opcode[1 << 16];
    /** Candidates by key: bits 6..2, 14..12 and 31..25 (15 bits), most specific first. */
    private final Opcode[][] buckets = new Opcode[1 << 15][];

    Decoder(List<Opcode> opcodes, Set<Extension> enabled) {
        List<Opcode> wide = new ArrayList<>();
        List<Opcode> narrow = new ArrayList<>();
        for (Opcode op : opcodes) {
            if (enabled.containsAll(op.requires())) {
                (op.size() == 2 ? narrow : wide).add(op);
            }
        }
        Comparator<Opcode> specificFirst = Comparator.comparingInt((Opcode o) -> -Integer.bitCount(o.mask()));
        narrow.sort(specificFirst);
        wide.sort(specificFirst);
        for (int w = 0; w < 1 << 16; w++) {
            if ((w & 3) == 3) {
                continue;
            }
            for (Opcode op : narrow) {
                if (op.accepts(w)) {
                    compressed[w] = op;
                    break;
                }
            }
        }
        int keyMask = unkey(0x7fff);
        List<Opcode> list = new ArrayList<>();
        for (int key = 0; key < buckets.length; key++) {
            int keyBits = unkey(key) | 3;
            list.clear();
            for (Opcode op : wide) {
                if (((keyBits ^ op.match()) & op.mask() & (keyMask | 3)) == 0) {
                    list.add(op);
                }
            }
            buckets[key] = list.isEmpty() ? NONE : list.toArray(NONE);
        }
    }

    private static int key(int bits) {
        return ((bits >>> 2) & 0x1f) | ((bits >>> 7) & 0xe0) | ((bits >>> 17) & 0x7f00);
    }

    /** The instruction bits that a key stands for. */
    private static int unkey(int key) {
        return ((key & 0x1f) << 2) | ((key & 0xe0) << 7) | ((key & 0x7f00) << 17);
    }

    /**
     * Instruction length in bytes from the first 16-bit parcel by the RISC-V length encoding: 2, 4,
     * 6 or 8; -1 for the reserved encodings of 80 bits and more.
     */
    public static int length(int parcel) {
        if ((parcel & 0x3) != 0x3) {
            return 2;
        }
        if ((parcel & 0x1c) != 0x1c) {
            return 4;
        }
        if ((parcel & 0x3f) == 0x1f) {
            return 6;
        }
        if ((parcel & 0x7f) == 0x3f) {
            return 8;
        }
        return -1;
    }

    /**
     * The opcode of a 2- or 4-byte instruction (in the low 16 or 32 bits of {@code bits}), or null
     * when the word is not a valid, canonical instruction of the enabled extensions.
     */
    public Opcode decode(int bits, int size) {
        if (size == 2) {
            return compressed[bits & 0xffff];
        }
        if (size != 4 || (bits & 0x1c) == 0x1c || (bits & 3) != 3) {
            return null;
        }
        Opcode[] candidates = buckets[key(bits)];
        for (Opcode op : candidates) {
            if ((bits & op.mask()) == op.match() && op.constraintsHold(bits)) {
                return op;
            }
        }
        return null;
    }
}
