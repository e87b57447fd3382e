package dev.splice.listing;

import dev.splice.base.BadInputException;

/** A listing the assembler refuses; the message reads {@code file:line:column: what and why}. */
public final class ListingException extends BadInputException {
    private static final long serialVersionUID = 1L;

    /** The listing's name, as the assembler was given it. */
    private final String file;
    /** The 1-based line number. */
    private final int line;
    /** The 1-based column number. */
    private final int column;
    /** What is wrong, without the location. */
    private final String reason;

    /**
     * A refusal at a place in a listing.
     *
     * @param file the listing's name
     * @param line the 1-based line number
     * @param column the 1-based column number
     * @param reason what is wrong and why, without the location
     */
    public ListingException(String file, int line, int column, String reason) {
        super(file + ":" + line + ":" + column + ": " + reason);
        this.file = file;
        this.line = line;
        this.column = column;
        this.reason = reason;
    }

    /**
     * The listing's name, as the assembler was given it.
     *
     * @return the file name
     */
    public String file() {
        return file;
    }

    /**
     * The line of the error.
     *
     * @return the 1-based line number
     */
    public int line() {
        return line;
    }

    /**
     * The column of the error.
     *
     * @return the 1-based column number
     */
    public int column() {
        return column;
    }

    /**
     * The message without the location.
     *
     * @return what is wrong and why
     */
    public String reason() {
        return reason;
    }
}
