package dev.splice.base;

/**
 * Addresses as people type them on the command line (docs/cli.md, "Addresses"): {@code 0x} hex,
 * decimal, bare hex as objdump prints it ({@code 10a2c}), or {@code SYMBOL+OFFSET} / {@code SYMBOL},
 * the form Splice's listings print.
 *
 * <p>Bare hex must start with a digit and contain a letter {@code a}-{@code f}: a text of decimal
 * digits alone is decimal (objdump's own options read it so), and one that starts with a letter is
 * a symbol's name.
 */
public final class AddressText {
    private AddressText() {}

    /**
     * An address as written: a number, or a symbol and an offset from its value.
     *
     * @param symbol the symbol's name, or null for a plain number
     * @param offset the number, or the offset from the symbol
     */
    public record Parsed(String symbol, long offset) {
        /**
         * Whether the text was a plain number.
         *
         * @return true when {@link #symbol()} is null
         */
        public boolean isNumber() {
            return symbol == null;
        }
    }

    /**
     * Parses an address.
     *
     * @param text what was typed
     * @return the number, or the symbol and offset
     * @throws IllegalArgumentException when the text is none of the forms (the message says which are)
     */
    public static Parsed parse(String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty address");
        }
        if (Character.isDigit(t.charAt(0))) {
            return new Parsed(null, number(t));
        }
        int plus = t.lastIndexOf('+');
        if (plus == 0) {
            throw new IllegalArgumentException("'" + text + "': no symbol before '+'");
        }
        if (plus < 0) {
            return new Parsed(t, 0);
        }
        return new Parsed(t.substring(0, plus), number(t.substring(plus + 1)));
    }

    /**
     * Parses a number: {@code 0x} hex, decimal digits, or bare hex (starting with a digit, with a
     * letter {@code a}-{@code f}); unsigned 64-bit.
     *
     * @param digits the text
     * @return the value
     * @throws IllegalArgumentException when it is no such number or does not fit in 64 bits
     */
    public static long number(String digits) {
        try {
            if (digits.startsWith("0x") || digits.startsWith("0X")) {
                return Long.parseUnsignedLong(digits.substring(2), 16);
            }
            boolean hexLetter = digits.chars().anyMatch(c -> (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
            if (hexLetter && !digits.isEmpty() && Character.isDigit(digits.charAt(0))) {
                return Long.parseUnsignedLong(digits, 16);
            }
            return Long.parseUnsignedLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + digits + "' is no number: 0x hex, decimal or bare hex (10a2c) expected");
        }
    }
}
