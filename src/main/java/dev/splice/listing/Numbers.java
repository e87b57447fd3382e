package dev.splice.listing;

/** Integer literals as people type them: decimal, 0x hex, 0b binary, 0o/leading-0 octal, signed. */
final class Numbers {
    private Numbers() {}

    /** True when the text is a well-formed literal (not checked for range). */
    static boolean looksNumeric(String text) {
        if (text.isEmpty()) {
            return false;
        }
        char c = text.charAt(0);
        if ((c == '-' || c == '+') && text.length() > 1) {
            c = text.charAt(1);
        }
        return c >= '0' && c <= '9' && !isLocalReference(text);
    }

    /** "1b", "12f": a numeric local label reference. */
    static boolean isLocalReference(String text) {
        int n = text.length();
        if (n < 2) {
            return false;
        }
        char last = text.charAt(n - 1);
        if (last != 'b' && last != 'f') {
            return false;
        }
        for (int i = 0; i < n - 1; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses a literal whose value fits in 64 bits, either signed (down to -2^63) or unsigned (up
     * to 2^64-1, returned as the same bits).
     *
     * @throws NumberFormatException with a message saying why
     */
    static long parse(String text) {
        String s = text.trim();
        boolean negative = false;
        int i = 0;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            i = 1;
        }
        int radix = 10;
        if (s.startsWith("0x", i) || s.startsWith("0X", i)) {
            radix = 16;
            i += 2;
        } else if (s.startsWith("0b", i) || s.startsWith("0B", i)) {
            radix = 2;
            i += 2;
        } else if (s.startsWith("0o", i) || s.startsWith("0O", i)) {
            radix = 8;
            i += 2;
        } else if (s.length() > i + 1 && s.charAt(i) == '0') {
            radix = 8; // GNU as: a leading 0 means octal
            i += 1;
        }
        if (i >= s.length()) {
            throw new NumberFormatException("'" + text + "' is not a number");
        }
        long magnitude = 0;
        for (; i < s.length(); i++) {
            int digit = Character.digit(s.charAt(i), radix);
            if (digit < 0) {
                throw new NumberFormatException("'" + text + "' is not a number");
            }
            if (Long.compareUnsigned(magnitude, Long.divideUnsigned(-1L - digit, radix)) > 0) {
                throw new NumberFormatException("'" + text + "' does not fit in 64 bits");
            }
            magnitude = magnitude * radix + digit;
        }
        if (negative) {
            if (Long.compareUnsigned(magnitude, Long.MIN_VALUE) > 0) {
                throw new NumberFormatException("'" + text + "' does not fit in 64 bits");
            }
            return -magnitude;
        }
        return magnitude;
    }
}
