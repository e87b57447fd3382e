package dev.splice.isa;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** Register, rounding-mode and fence-set names. */
final class Names {
    private Names() {}

    static final String[] XREG = {
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
        "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
    static final String[] FREG = {
        "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2", "fa3",
        "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11",
        "ft8", "ft9", "ft10", "ft11"};
    /** Rounding modes by value; null for the reserved 5 and 6. */
    static final String[] RM = {"rne", "rtz", "rdn", "rup", "rmm", null, null, "dyn"};
    /** The same names as ASCII bytes (reserved rounding modes as their number), for the printer. */
    static final byte[][] XREG_BYTES = bytes(XREG);
    static final byte[][] FREG_BYTES = bytes(FREG);
    static final byte[][] RM_BYTES = bytes(new String[] {"rne", "rtz", "rdn", "rup", "rmm", "5", "6", "dyn"});
    /** Vector registers v0..v31 as ASCII bytes. */
    static final byte[][] VREG_BYTES = new byte[32][];
    /** The masked form of a vector instruction's vm operand. */
    static final byte[] V0_T = TextBuffer.ascii("v0.t");
    /** Zfa's fli constants by index, spelled as llvm-objdump-22 prints them. */
    static final String[] FLI = {"-1.0", "min", "1.52587890625e-05", "3.0517578125e-05", "0.00390625",
        "0.0078125", "0.0625", "0.125", "0.25", "0.3125", "0.375", "0.4375", "0.5", "0.625", "0.75", "0.875",
        "1.0", "1.25", "1.5", "1.75", "2.0", "2.5", "3.0", "4.0", "8.0", "16.0", "128.0", "256.0", "32768.0",
        "65536.0", "inf", "nan"};
    static final byte[][] FLI_BYTES = bytes(FLI);
    /** Fence sets by value: "0" or the "iorw" letters. */
    static final byte[][] FENCE_BYTES = new byte[16][];

    private static byte[][] bytes(String[] names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            out[i] = TextBuffer.ascii(names[i]);
        }
        return out;
    }

    private static final Map<String, Integer> X = new HashMap<>();
    private static final Map<String, Integer> FR = new HashMap<>();

    static {
        for (int i = 0; i < 32; i++) {
            X.put(XREG[i], i);
            // No string concatenation: its invokedynamic bootstrap costs milliseconds at start-up,
            // and the table reader needs these names.
            X.put("x".concat(Integer.toString(i)), i);
            FR.put(FREG[i], i);
            FR.put("f".concat(Integer.toString(i)), i);
            VREG_BYTES[i] = TextBuffer.ascii("v".concat(Integer.toString(i)));
        }
        X.put("fp", 8);
        for (int set = 0; set < 16; set++) {
            StringBuilder text = new StringBuilder(4);
            appendFence(text, set);
            FENCE_BYTES[set] = TextBuffer.ascii(text.toString());
        }
    }

    /** The number of an integer register name (ABI or x-name), or -1. */
    static int xreg(String name) {
        return X.getOrDefault(name.toLowerCase(Locale.ROOT), -1);
    }

    /** The number of a floating-point register name (ABI or f-name), or -1. */
    static int freg(String name) {
        return FR.getOrDefault(name.toLowerCase(Locale.ROOT), -1);
    }

    /** The number of a vector register name (v0..v31), or -1. */
    static int vreg(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.length() < 2 || n.length() > 3 || n.charAt(0) != 'v') {
            return -1;
        }
        int r = 0;
        for (int i = 1; i < n.length(); i++) {
            char c = n.charAt(i);
            if (c < '0' || c > '9' || (i == 1 && c == '0' && n.length() == 3)) {
                return -1;
            }
            r = r * 10 + (c - '0');
        }
        return r < 32 ? r : -1;
    }

    static int roundingMode(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (int i = 0; i < RM.length; i++) {
            if (n.equals(RM[i])) {
                return i;
            }
        }
        return -1;
    }

    /** "iorw" letters of a fence set, "0" when empty. */
    static void appendFence(StringBuilder out, int set) {
        if (set == 0) {
            out.append('0');
            return;
        }
        if ((set & 8) != 0) out.append('i');
        if ((set & 4) != 0) out.append('o');
        if ((set & 2) != 0) out.append('r');
        if ((set & 1) != 0) out.append('w');
    }

    /** Parses a fence set ("iorw" letters in that order, or "0"); -1 if malformed. */
    static int fence(String text) {
        String t = text.toLowerCase(Locale.ROOT);
        if (t.equals("0")) {
            return 0;
        }
        int set = 0;
        int last = 16;
        for (int i = 0; i < t.length(); i++) {
            int bit = switch (t.charAt(i)) {
                case 'i' -> 8;
                case 'o' -> 4;
                case 'r' -> 2;
                case 'w' -> 1;
                default -> -1;
            };
            if (bit < 0 || bit >= last) {
                return -1;
            }
            set |= bit;
            last = bit;
        }
        return t.isEmpty() ? -1 : set;
    }
}
