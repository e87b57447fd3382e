package dev.splice.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Decodes instruction words for a set of enabled extensions. 16-bit words are looked up in a table
 * filled once for all 65,536 parcels; 32-bit words dispatch on the major opcode, funct3 and funct7
 * bits to a short list of candidates. The sweep API ({@link #decodeAll}, {@link #decodeAt}) adds
 * tables of packed results built from those lists, so most words take one or two array reads.
 * Nothing is allocated per decode.
 */
public final class Decoder {
    private static final Opcode[] NONE = new Opcode[0];

    /** Per 16-bit parcel: index into {@link #narrowOps}, whose entry 0 is null (64 KiB, cache-friendly). */
    private final byte[] compressed = new byte[1 << 16];
    private final Opcode[] narrowOps;
    /**
     * Per key (bits 6..2, 14..12 and 31..25: 15 bits): the offset in {@link #words} of its candidate
     * list. Identical lists are shared. A list is a count, then per candidate (most specific
     * first) mask, match, flags (FLAG_*) and index into {@link #wideOps}.
     */
    private final char[] listAt = new char[1 << 15];
    private final int[] words;
    private final Opcode[] wideOps;

    /** Every table row by {@link Opcode#id()}, for unpacking decode results. */
    private final Opcode[] byId;
    /**
     * Packed results ({@link #decodeAt}) without the list walk. Entries 0..65535 per low 16 bits:
     * a compressed instruction's result, or a 32-bit instruction's when its low 16 bits decide it
     * (addi, loads, stores, branches, jal...), else {@link #NEED_KEY}. Then per 32-bit key the
     * result when the key alone decides it (one candidate whose fixed bits all lie in the key, or
     * none), else {@link #SLOW}: the candidate list must be walked.
     */
    private final char[] direct = new char[(1 << 16) + (1 << 15)];
    private static final char SLOW = 0xffff;
    private static final char NEED_KEY = 0xfffe;
    /** A parcel whose low bits announce an instruction of 48 bits or more (only decodeAll reads it). */
    private static final char LONG = 0xfffd;

    /** Packed result layout: size in bytes (bits 3..0), loose-bytes flag, opcode id + 1 above. */
    private static final int SIZE_MASK = 0xf;
    private static final int LOOSE = 0x10;
    private static final int ID_SHIFT = 5;

    /** The candidate has constraints beyond "rm is not 5 or 6". */
    private static final int FLAG_GENERAL = 1;
    /** The candidate's only constraint is a rounding mode in bits 14..12 that must not be 5 or 6. */
    private static final int FLAG_RM = 2;

    Decoder(List<Opcode> opcodes, Set<Extension> enabled) {
        byId = opcodes.toArray(NONE);
        List<Opcode> wide = new ArrayList<>();
        List<Opcode> narrow = new ArrayList<>();
        for (Opcode op : opcodes) {
            if (op.enabledBy(enabled)) {
                (op.size() == 2 ? narrow : wide).add(op);
            }
        }
        specificFirst(narrow);
        specificFirst(wide);
        if (narrow.size() > Byte.MAX_VALUE) {
            throw new IllegalStateException("too many compressed instructions for a byte index");
        }
        narrowOps = new Opcode[narrow.size() + 1];
        for (int i = 0; i < narrow.size(); i++) {
            narrowOps[i + 1] = narrow.get(i);
        }
        wideOps = wide.toArray(NONE);
        // Only the candidates that can match a parcel's quadrant and funct3 (bits 1..0 and 15..13)
        // are tried on it, in the same order: building the table stays cheap at start-up.
        // Fixed bits in local arrays, and constraints checked only where there are any: the
        // interpreter runs most of this loop.
        int groupMask = 0xe003;
        int[] masks = new int[narrowOps.length];
        int[] matches = new int[narrowOps.length];
        boolean[] constrained = new boolean[narrowOps.length];
        for (int i = 1; i < narrowOps.length; i++) {
            masks[i] = narrowOps[i].mask();
            matches[i] = narrowOps[i].match();
            constrained[i] = narrowOps[i].constraintFields.length > 0;
        }
        for (int group = 0; group < 32; group++) {
            int groupBits = (group & 3) | ((group >>> 2) << 13);
            if ((groupBits & 3) == 3) {
                continue;
            }
            int[] candidates = candidates(narrowOps, 1, groupBits, groupMask);
            for (int low = 0; low < 1 << 11; low++) {
                int w = groupBits | (low << 2);
                for (int i : candidates) {
                    if ((w & masks[i]) == matches[i] && (!constrained[i] || narrowOps[i].constraintsHold(w))) {
                        compressed[w] = (byte) i;
                        break;
                    }
                }
            }
        }
        int keyMask = unkey(0x7fff) | 3;
        // Candidates per major opcode, then per major opcode and funct3 (the key's low 8 bits), so
        // each key filters a short list.
        int lowMask = unkey(0xff) | 3;
        int[][] byLow = new int[1 << 8][];
        // Where no candidate fixes a bit of funct7 (bits 31..25), every key with those low 8 bits
        // has the same list: the one of funct7 = 0.
        boolean[] funct7Free = new boolean[1 << 8];
        int[][] byMajor = new int[32][];
        for (int major = 0; major < 32; major++) {
            byMajor[major] = candidates(wideOps, 0, (major << 2) | 3, 0x7f);
        }
        for (int low = 0; low < 1 << 8; low++) {
            byLow[low] = candidates(byMajor[low & 0x1f], wideOps, unkey(low) | 3, lowMask);
            funct7Free[low] = true;
            for (int i : byLow[low]) {
                if ((wideOps[i].mask() & 0xfe000000) != 0) {
                    funct7Free[low] = false;
                }
            }
        }
        // Identical candidate lists are found through an open-addressing table of their offsets
        // (plus one; 0 is empty), hashed on the candidate indices: no boxing, no per-key object.
        // At most 32,768 lists, so the table stays at most half full.
        int[] slots = new int[1 << 16];
        int[] flat = new int[1 << 12];
        int size = 0;
        int[] listBuf = new int[wideOps.length];
        for (int key = 0; key < 1 << 15; key++) {
            if (key > 0xff && funct7Free[key & 0xff]) {
                listAt[key] = listAt[key & 0xff];
                continue;
            }
            int keyBits = unkey(key) | 3;
            int n = 0;
            int hash = 0;
            for (int i : byLow[key & 0xff]) {
                Opcode op = wideOps[i];
                if (((keyBits ^ op.match()) & op.mask() & keyMask) == 0) {
                    listBuf[n++] = i;
                    hash = hash * 31 + i;
                }
            }
            int slot = (hash * 0x9e3779b9 >>> 16) & (slots.length - 1);
            int at;
            while (true) {
                if (slots[slot] == 0) {
                    at = size;
                    if (size + 1 + 4 * n > flat.length) {
                        flat = java.util.Arrays.copyOf(flat, Math.max(flat.length * 2, size + 1 + 4 * n));
                    }
                    flat[size++] = n;
                    for (int j = 0; j < n; j++) {
                        int i = listBuf[j];
                        Opcode op = wideOps[i];
                        Field[] cf = op.constraintFields;
                        boolean onlyRm = cf.length == 1 && cf[0].instMask == 0x7000
                                && (cf[0].kind == OperandKind.RM || cf[0].kind == OperandKind.RMX);
                        flat[size++] = op.mask();
                        flat[size++] = op.match();
                        flat[size++] = cf.length == 0 ? 0 : onlyRm ? FLAG_RM : FLAG_GENERAL;
                        flat[size++] = i;
                    }
                    slots[slot] = at + 1;
                    break;
                }
                at = slots[slot] - 1;
                if (sameList(flat, at, listBuf, n)) {
                    break;
                }
                slot = (slot + 1) & (slots.length - 1);
            }
            if (at > Character.MAX_VALUE) {
                throw new IllegalStateException("decoder lists too large");
            }
            listAt[key] = (char) at;
        }
        words = java.util.Arrays.copyOf(flat, size);
        fillDirect(keyMask);
    }

    /** Whether the list at {@code flat[at]} holds exactly the candidates {@code list[0, n)}. */
    private static boolean sameList(int[] flat, int at, int[] list, int n) {
        if (flat[at] != n) {
            return false;
        }
        for (int j = 0; j < n; j++) {
            if (flat[at + 4 + 4 * j] != list[j]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sorts the opcodes by fixed bits, most first, keeping table order among equals (what a stable
     * sort by that count does, without a comparator to spin up at start-up).
     */
    private static void specificFirst(List<Opcode> ops) {
        Opcode[] in = ops.toArray(NONE);
        ops.clear();
        for (int bits = 32; bits >= 0; bits--) {
            for (Opcode op : in) {
                if (Integer.bitCount(op.mask()) == bits) {
                    ops.add(op);
                }
            }
        }
    }

    private void fillDirect(int keyMask) {
        for (int key = 0; key < 1 << 15; key++) {
            int at = listAt[key];
            int n = words[at];
            int result = SLOW;
            if ((key & 0x7) == 0x7) {
                result = SLOW; // bits 4..2 = 111: not a 32-bit instruction
            } else if (n == 0) {
                result = pack(null, 4);
            } else if (n == 1 && words[at + 3] == 0 && (words[at + 1] & ~(keyMask | 3)) == 0) {
                result = pack(wideOps[words[at + 4]], 4);
            }
            direct[(1 << 16) + key] = (char) result;
        }
        // The low 16 bits of a 32-bit word hold the key's bits 6..2 and 14..12; when the key's
        // entry is the same for every value of bits 31..25, those 16 bits decide the word.
        char[] byLow = new char[1 << 8];
        for (int low = 0; low < 1 << 8; low++) {
            char first = direct[(1 << 16) + low];
            for (int high = 1; high < 1 << 7 && first != NEED_KEY; high++) {
                if (direct[(1 << 16) + (high << 8 | low)] != first) {
                    first = NEED_KEY;
                }
            }
            byLow[low] = first == SLOW ? NEED_KEY : first;
        }
        char[] narrowPacked = new char[narrowOps.length];
        for (int i = 0; i < narrowOps.length; i++) {
            narrowPacked[i] = (char) pack(narrowOps[i], 2);
        }
        for (int parcel = 0; parcel < 1 << 16; parcel++) {
            if ((parcel & 3) != 3) {
                direct[parcel] = narrowPacked[compressed[parcel]];
            } else if ((parcel & 0x1f) == 0x1f) {
                direct[parcel] = LONG; // 48 bits or longer: the sweep decodes it on its own
            } else {
                direct[parcel] = byLow[((parcel >>> 2) & 0x1f) | ((parcel >>> 7) & 0xe0)]; // key(parcel) & 0xff
            }
        }
    }

    private static int pack(Opcode op, int size) {
        return size | (op == null ? 0 : (op.id() + 1) << ID_SHIFT);
    }

    static {
        // Packed results must fit the char table (and never equal its SLOW marker).
        if ((Isa.MAX_OPCODES + 1) << ID_SHIFT > Character.MAX_VALUE) {
            throw new IllegalStateException("packed decode results need more than 16 bits");
        }
    }

    /**
     * The indices (from {@code first}, in order) of the opcodes whose fixed bits agree with
     * {@code bits} on the bits of {@code mask}.
     */
    private static int[] candidates(Opcode[] ops, int first, int bits, int mask) {
        int[] out = new int[ops.length];
        int n = 0;
        for (int i = first; i < ops.length; i++) {
            if (((bits ^ ops[i].match()) & ops[i].mask() & mask) == 0) {
                out[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /** The indices of {@code among} (in order) whose opcodes agree with {@code bits} on the bits of {@code mask}. */
    private static int[] candidates(int[] among, Opcode[] ops, int bits, int mask) {
        int[] out = new int[among.length];
        int n = 0;
        for (int i : among) {
            if (((bits ^ ops[i].match()) & ops[i].mask() & mask) == 0) {
                out[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(out, n);
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
     *
     * @param parcel the first 16 bits of the instruction
     * @return the length in bytes, or -1
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
     * Decodes the item at {@code code[offset]} of a linear sweep that ends at {@code end}, without
     * allocating: returns a packed result, read with {@link #size(int)}, {@link #opcode(int)} and
     * {@link #isLoose(int)}. An item is a valid instruction (opcode non-null), an invalid or
     * 48/64-bit instruction word (opcode null), or loose bytes that cannot form an instruction
     * (a truncated instruction at the end, one byte, a reserved length encoding: 2 bytes).
     *
     * @param code the bytes
     * @param offset where the item starts
     * @param end where the sweep ends
     * @return the packed result
     */
    public int decodeAt(byte[] code, int offset, int end) {
        int left = end - offset;
        if (left < 2) {
            return left | LOOSE;
        }
        int parcel = (code[offset] & 0xff) | (code[offset + 1] & 0xff) << 8;
        if ((parcel & 3) != 3) {
            return direct[parcel];
        }
        int length = length(parcel);
        if (length < 0) {
            return 2 | LOOSE;
        }
        if (left < length) {
            return left | LOOSE;
        }
        if (length != 4) {
            return length;
        }
        return lookup(direct, parcel | (code[offset + 2] & 0xff) << 16 | (code[offset + 3] & 0xff) << 24);
    }

    /**
     * Decodes the linear sweep of {@code code[from, to)} into {@code out} (packed results as
     * {@link #decodeAt} returns them, one per item; {@code out} needs (to - from) / 2 + 1
     * entries) and returns the number of items.
     *
     * <p>In a sweep each address waits for the previous instruction's length, so that chain is
     * kept short: one 8-byte read gives two instructions (the second word is a shift of it), the
     * lengths come from the low bits without branches, and the table lookups, which nothing
     * waits for, run alongside. A 48/64-bit instruction (the table marks its parcels {@code LONG},
     * so no separate test of the low bits is needed) goes one at a time.
     *
     * @param code the bytes
     * @param from the first byte of the sweep
     * @param to the end of the sweep
     * @param out the packed results, one per item
     * @return the number of items
     */
    public int decodeAll(byte[] code, int from, int to, int[] out) {
        char[] table = direct;
        int n = 0;
        int pos = from;
        int last = to - 8;
        while (pos <= last) {
            // Two instructions per step from one 8-byte read: the second one's word is a shift of
            // it, so the next address waits for one load instead of two.
            long eight = (long) LONG_LE.get(code, pos);
            int first = (int) eight;
            int firstSize = 2 << (((first & 3) + 1) >> 2);
            int second = (int) (eight >>> (firstSize << 3));
            int a = lookup(table, first);
            int b = lookup(table, second);
            // Either word 48 bits or longer (the table says so): one at a time.
            if ((a == LONG) | (b == LONG)) {
                int packed = decodeAt(code, pos, to);
                out[n++] = packed;
                pos += packed & SIZE_MASK;
                continue;
            }
            out[n] = a;
            out[n + 1] = b;
            n += 2;
            pos += firstSize + (2 << (((second & 3) + 1) >> 2));
        }
        while (pos < to) {
            int packed = decodeAt(code, pos, to);
            out[n++] = packed;
            pos += packed & SIZE_MASK;
        }
        return n;
    }

    /** The packed result of a 2- or 4-byte instruction word (its low 16 bits for a 2-byte one). */
    private int lookup(char[] table, int word) {
        int packed = table[word & 0xffff];
        if (packed == NEED_KEY) { // R-type and the like: funct7 decides
            packed = table[(1 << 16) + key(word)];
            if (packed == SLOW) {
                packed = pack(decode(word, 4), 4); // only 32-bit words need the key
            }
        }
        return packed;
    }

    private static final java.lang.invoke.VarHandle LONG_LE =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * The size of a packed item.
     *
     * @param packed a result of {@link #decodeAt} or {@link #decodeAll}
     * @return its size in bytes (2, 4, 6 or 8; 1 to 3 for loose bytes)
     */
    public static int size(int packed) {
        return packed & SIZE_MASK;
    }

    /**
     * Whether a packed item is loose bytes, not an instruction word.
     *
     * @param packed a result of {@link #decodeAt} or {@link #decodeAll}
     * @return true for loose bytes
     */
    public static boolean isLoose(int packed) {
        return (packed & LOOSE) != 0;
    }

    /**
     * The opcode of a packed item.
     *
     * @param packed a result of {@link #decodeAt} or {@link #decodeAll}
     * @return the opcode, or null when the item is not a valid instruction
     */
    public Opcode opcode(int packed) {
        int id = packed >>> ID_SHIFT;
        return id == 0 ? null : byId[id - 1];
    }

    /**
     * The opcode of a 2- or 4-byte instruction (in the low 16 or 32 bits of {@code bits}), or null
     * when the word is not a valid, canonical instruction of the enabled extensions.
     *
     * @param bits the instruction word
     * @param size 2 or 4
     * @return the opcode, or null
     */
    public Opcode decode(int bits, int size) {
        if (size == 2) {
            return narrowOps[compressed[bits & 0xffff]];
        }
        if (size != 4) {
            return null;
        }
        // No separate length check: every 32-bit row fixes bits 1..0 = 11 and bits 4..2 != 111,
        // so a parcel of another length matches no candidate.
        int[] w = words;
        int at = listAt[key(bits)];
        for (int i = at + 1, end = at + 1 + 4 * w[at]; i < end; i += 4) {
            if ((bits & w[i]) == w[i + 1]) {
                int flags = w[i + 2];
                Opcode op = wideOps[w[i + 3]];
                if (flags == 0) {
                    return op;
                }
                if (flags == FLAG_RM) {
                    int rm = (bits >>> 12) & 7;
                    if (rm != 5 && rm != 6) {
                        return op;
                    }
                } else if (op.constraintsHold(bits)) {
                    return op;
                }
            }
        }
        return null;
    }
}
