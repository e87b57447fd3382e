package dev.splice.isa;

/**
 * The vtype setting of vsetvli and vsetivli as text, "e32, m2, ta, ma" (as llvm-objdump prints it
 * and llvm-mc and GNU as read it): bits 2..0 are vlmul, 5..3 vsew, 6 vta, 7 vma. Values with a
 * reserved vlmul (4), a reserved vsew (4 to 7) or any bit above 7 set have no such text and are
 * written as numbers.
 */
final class VectorType {
    private static final String[] LMUL = {"m1", "m2", "m4", "m8", null, "mf8", "mf4", "mf2"};
    private static final byte[][] SEW_BYTES = {
        TextBuffer.ascii("e8, "), TextBuffer.ascii("e16, "), TextBuffer.ascii("e32, "), TextBuffer.ascii("e64, ")};
    private static final byte[][] LMUL_BYTES = new byte[8][];
    private static final byte[][] POLICY_BYTES = {
        TextBuffer.ascii(", tu, mu"), TextBuffer.ascii(", ta, mu"), TextBuffer.ascii(", tu, ma"), TextBuffer.ascii(", ta, ma")};

    static {
        for (int i = 0; i < 8; i++) {
            LMUL_BYTES[i] = LMUL[i] == null ? null : TextBuffer.ascii(LMUL[i]);
        }
    }

    private VectorType() {}

    /** Whether a vtype value has a text form (neither reserved nor with bits above 7). */
    static boolean named(int vtype) {
        return (vtype >>> 8) == 0 && (vtype & 7) != 4 && ((vtype >>> 3) & 7) < 4;
    }

    /** Appends the text of a vtype value; false (nothing appended) when it has none. */
    static boolean append(TextBuffer out, int vtype) {
        if (!named(vtype)) {
            return false;
        }
        out.append(SEW_BYTES[(vtype >>> 3) & 7]).append(LMUL_BYTES[vtype & 7]).append(POLICY_BYTES[(vtype >>> 6) & 3]);
        return true;
    }

    /** The vsew bits of "e8".."e64", or -1. */
    static int sew(String word) {
        return switch (word.toLowerCase(java.util.Locale.ROOT)) {
            case "e8" -> 0;
            case "e16" -> 1;
            case "e32" -> 2;
            case "e64" -> 3;
            default -> -1;
        };
    }

    /** The vlmul bits of "m1".."m8", "mf2".."mf8", or -1. */
    static int lmul(String word) {
        String w = word.toLowerCase(java.util.Locale.ROOT);
        for (int i = 0; i < LMUL.length; i++) {
            if (w.equals(LMUL[i])) {
                return i;
            }
        }
        return -1;
    }
}
