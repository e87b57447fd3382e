package dev.splice.base;

/**
 * Input that Splice refuses: a file, listing or profile that is malformed or that Splice cannot
 * handle exactly. The message already says what, where (file, offset or line:column) and why; the
 * CLI prints it as is and exits with status 2.
 */
public class BadInputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal.
     *
     * @param message what, where and why
     */
    public BadInputException(String message) {
        super(message);
    }

    /**
     * A refusal caused by another exception (an I/O error, ...).
     *
     * @param message what, where and why
     * @param cause the underlying exception
     */
    public BadInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
