package dev.splice.cfg;

/**
 * A function whose edges Splice cannot count exactly: what and where is in the message (the
 * instrumentation skips the function and says so).
 */
public class EdgeProfileException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message.
     *
     * @param message what cannot be counted, where and why
     */
    public EdgeProfileException(String message) {
        super(message);
    }
}
