package dev.splice.patch;

import dev.splice.base.BadInputException;

/** A write-back Splice refuses: the message says what, where and why (and what to do instead). */
public class PatchException extends BadInputException {
    private static final long serialVersionUID = 1L;

    private final long functionAddress;

    public PatchException(String message) {
        this(message, -1);
    }

    /** A refusal caused by one function (its input address), which bulk callers may leave out and retry. */
    public PatchException(String message, long functionAddress) {
        super(message);
        this.functionAddress = functionAddress;
    }

    /** The input address of the function that caused the refusal, or -1. */
    public long functionAddress() {
        return functionAddress;
    }
}
