package dev.splice.patch;

import dev.splice.BadInputException;

/** A write-back Splice refuses: the message says what, where and why (and what to do instead). */
public class PatchException extends BadInputException {
    private static final long serialVersionUID = 1L;

    public PatchException(String message) {
        super(message);
    }
}
