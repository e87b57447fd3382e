package dev.splice.isa;

/** A bad operand: message plus the 0-based column within the operand text (-1 if unknown). */
public final class OperandException extends Exception {
    /** Serialisation version. */
    private static final long serialVersionUID = 1L;
    /** The 0-based column within the operand text, or -1. */
    private final int column;

    /**
     * A bad operand.
     *
     * @param message what is wrong
     * @param column the 0-based column in the operand text, or -1
     */
    public OperandException(String message, int column) {
        super(message);
        this.column = column;
    }

    /** {@return the 0-based column within the operand text, or -1 if unknown} */
    public int column() {
        return column;
    }
}
