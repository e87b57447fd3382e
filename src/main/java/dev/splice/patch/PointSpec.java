package dev.splice.patch;

import dev.splice.base.AddressText;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What selects insertion points, parsed from the text {@code splice patch --at} and
 * {@code splice points} take (docs/patch.md, "Choosing points"):
 *
 * <ul>
 *   <li>{@code ADDR}: an address, {@code 0x} hex, decimal or bare hex ({@link AddressText#number}; {@link Address});
 *   <li>{@code SYMBOL+OFFSET} or {@code SYMBOL}: an offset from a symbol, as listings print it
 *       ({@link SymbolOffset});
 *   <li>{@code entry:GLOB}, {@code exit:GLOB}, {@code block:GLOB}, {@code call:GLOB},
 *       {@code loop:GLOB}, {@code insn:GLOB:REGEX}: points of every function whose name the shell
 *       glob matches ({@link Patterned}).
 * </ul>
 *
 * <p>The input's coordinates throughout. {@link PointSelector} turns a spec into points.
 */
public sealed interface PointSpec {
    /**
     * The spec as written.
     *
     * @return the text it was parsed from
     */
    String text();

    /**
     * What kind of points the spec selects.
     *
     * @return the kind
     */
    PointKind kind();

    /**
     * One address.
     *
     * @param text the spec as written
     * @param address the address
     */
    record Address(String text, long address) implements PointSpec {
        @Override
        public PointKind kind() {
            return PointKind.ADDRESS;
        }
    }

    /**
     * An offset from a symbol's value.
     *
     * @param text the spec as written
     * @param symbol the symbol's name (a function's first, else any symbol's)
     * @param offset bytes after the symbol's value
     */
    record SymbolOffset(String text, String symbol, long offset) implements PointSpec {
        @Override
        public PointKind kind() {
            return PointKind.SYMBOL;
        }
    }

    /**
     * Points of a kind in every function a glob matches.
     *
     * @param text the spec as written
     * @param kind {@link PointKind#ENTRY} to {@link PointKind#INSN}
     * @param functions the glob, as a pattern the whole function name must match
     * @param mnemonics for {@link PointKind#INSN}, the pattern the whole mnemonic must match; else null
     */
    record Patterned(String text, PointKind kind, Pattern functions, Pattern mnemonics) implements PointSpec {}

    /**
     * Parses a spec.
     *
     * @param text the spec
     * @return the spec
     * @throws PointSpecException when the text is no spec (the message names the spec and the column)
     */
    static PointSpec parse(String text) {
        if (text.isEmpty()) {
            throw new PointSpecException(text, 1, "empty; expected ADDR, SYMBOL+OFFSET or KIND:GLOB");
        }
        if (Character.isDigit(text.charAt(0))) {
            return new Address(text, number(text, text, 1));
        }
        int colon = text.indexOf(':');
        if (colon > 0 && text.substring(0, colon).chars().allMatch(c -> c >= 'a' && c <= 'z')) {
            return patterned(text, text.substring(0, colon), colon);
        }
        int plus = text.lastIndexOf('+');
        if (plus == 0) {
            throw new PointSpecException(text, 1, "no symbol before '+'");
        }
        return plus < 0 ? new SymbolOffset(text, text, 0)
                : new SymbolOffset(text, text.substring(0, plus), number(text, text.substring(plus + 1), plus + 2));
    }

    private static PointSpec patterned(String text, String word, int colon) {
        PointKind kind;
        try {
            kind = PointKind.valueOf(word.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            kind = null;
        }
        if (kind == null || kind.isExplicit()) {
            throw new PointSpecException(text, 1, "unknown point kind '" + word + "': expected entry, exit, block, call, loop or insn");
        }
        String rest = text.substring(colon + 1);
        String glob = rest;
        Pattern mnemonics = null;
        if (kind == PointKind.INSN) {
            int second = rest.indexOf(':');
            if (second < 0) {
                throw new PointSpecException(text, text.length() + 1, "insn needs a mnemonic pattern: insn:GLOB:REGEX");
            }
            glob = rest.substring(0, second);
            String regex = rest.substring(second + 1);
            int regexColumn = colon + second + 3;
            if (regex.isEmpty()) {
                throw new PointSpecException(text, regexColumn, "empty mnemonic pattern");
            }
            try {
                mnemonics = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new PointSpecException(text, regexColumn + Math.max(0, e.getIndex()), "bad regular expression: " + e.getDescription());
            }
        }
        if (glob.isEmpty()) {
            throw new PointSpecException(text, colon + 2, "empty function glob (use * for every function)");
        }
        return new Patterned(text, kind, Glob.compile(glob, text, colon + 2), mnemonics);
    }

    /** A number ({@link AddressText#number}) at {@code column} of {@code spec}. */
    private static long number(String spec, String digits, int column) {
        try {
            return AddressText.number(digits);
        } catch (IllegalArgumentException e) {
            throw new PointSpecException(spec, column, e.getMessage());
        }
    }
}
