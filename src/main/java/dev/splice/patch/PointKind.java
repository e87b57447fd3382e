package dev.splice.patch;

import java.util.Locale;

/** What selected a {@link Point}: the kind of its {@link PointSpec}. */
public enum PointKind {
    /** An address given as a number ({@code 0x10702}, {@code 67330}). */
    ADDRESS,
    /** An address given as {@code SYMBOL+OFFSET}, the form listings print. */
    SYMBOL,
    /** {@code entry:GLOB}: the first instruction of each function. */
    ENTRY,
    /** {@code exit:GLOB}: before every return and every tail jump out of the function. */
    EXIT,
    /** {@code block:GLOB}: every basic-block start. */
    BLOCK,
    /** {@code call:GLOB}: before every call site. */
    CALL,
    /** {@code loop:GLOB}: every loop head (the target of a back edge). */
    LOOP,
    /** {@code insn:GLOB:REGEX}: every instruction whose mnemonic matches. */
    INSN;

    /**
     * The word a pattern spec starts with, and that listings of points print.
     *
     * @return the lower-case name ({@code entry}, {@code loop}, ...)
     */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether a spec of this kind names one address explicitly (and is refused like {@code --insert}).
     *
     * @return true for {@link #ADDRESS} and {@link #SYMBOL}
     */
    public boolean isExplicit() {
        return this == ADDRESS || this == SYMBOL;
    }
}
