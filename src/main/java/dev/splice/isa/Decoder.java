package dev.splice.isa;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Set;

/**
 * Decodes instruction words for a set of enabled extensions. 16-bit words are looked up in a table
 * filled once for all 65,536 parcels; 32-bit words dispatch on the major opcode, funct3 and funct7
 * bits to a short list of candidates. Nothing is allocated per decode.
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

    /** The candidate has constraints beyond "rm is not 5 or 6". */
    private static final int FLAG_GENERAL = 1;
    /** The candidate's only constraint is a rounding mode in bits 14..12 that must not be 5 or 6. */
    private static final int FLAG_RM = 2;

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
        int groupMask = 0xe003;
        for (int group = 0; group < 32; group++) {
            int groupBits = (group & 3) | ((group >>> 2) << 13);
            if ((groupBits & 3) == 3) {
                continue;
            }
            int[] candidates = candidates(narrowOps, 1, groupBits, groupMask);
            for (int low = 0; low < 1 << 11; low++) {
                int w = groupBits | (low << 2);
                for (int i : candidates) {
                    if (narrowOps[i].accepts(w)) {
                        compressed[w] = (byte) i;
                        break;
                    }
                }
            }
        }
        int keyMask = unkey(0x7fff) | 3;
        // Candidates per major opcode (bits 6..0) first, so each key filters a short list.
        int[][] byMajor = new int[32][];
        for (int major = 0; major < 32; major++) {
            byMajor[major] = candidates(wideOps, 0, (major << 2) | 3, 0x7f);
        }
        // A candidate list as a string of indices (each < 65,536): cheap to hash and compare.
        Map<String, Integer> shared = new HashMap<>();
        List<Integer> flat = new ArrayList<>();
        char[] listBuf = new char[wideOps.length];
        for (int key = 0; key < 1 << 15; key++) {
            int keyBits = unkey(key) | 3;
            int n = 0;
            for (int i : byMajor[key & 0x1f]) {
                Opcode op = wideOps[i];
                if (((keyBits ^ op.match()) & op.mask() & keyMask) == 0) {
                    listBuf[n++] = (char) i;
                }
            }
            String list = new String(listBuf, 0, n);
            Integer at = shared.get(list);
            if (at == null) {
                at = flat.size();
                shared.put(list, at);
                flat.add(n);
                for (int j = 0; j < n; j++) {
                    int i = list.charAt(j);
                    Opcode op = wideOps[i];
                    Field[] cf = op.constraintFields;
                    boolean onlyRm = cf.length == 1 && cf[0].instMask == 0x7000
                            && (cf[0].kind == OperandKind.RM || cf[0].kind == OperandKind.RMX);
                    flat.add(op.mask());
                    flat.add(op.match());
                    flat.add(cf.length == 0 ? 0 : onlyRm ? FLAG_RM : FLAG_GENERAL);
                    flat.add(i);
                }
            }
            if (at > Character.MAX_VALUE) {
                throw new IllegalStateException("decoder lists too large");
            }
            listAt[key] = (char) (int) at;
        }
        words = new int[flat.size()];
        for (int i = 0; i < words.length; i++) {
            words[i] = flat.get(i);
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
