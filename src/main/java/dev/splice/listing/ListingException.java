package dev.splice.listing;

import dev.splice.base.BadInputException;

/** A listing the assembler refuses; the message reads {@code file:line:column: what and why}. */
public final class ListingException extends BadInputException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final int column;
    private final String reason;

    public ListingException(String file, int line, int column, String reason) {
        super(file + ":" + line + ":" + column + ": " + reason);
        this.file = file;
        this.line = line;
        this.column = column;
        this.reason = reason;
    }

    public String file() {
        return file;
    }

    /** 1-based line number. */
    public int line() {
        return line;
    }

    /** 1-based column number. */
    public int column() {
        return column;
    }

    /** The message without the location. */
    public String reason() {
        return reason;
    }
}
