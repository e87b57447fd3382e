package dev.splice.isa;

/** A bad operand: message plus the 0-based column within the operand text (-1 if unknown). */
public final class OperandException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int column;

    public OperandException(String message, int column) {
        super(message);
        this.column = column;
    }

    public int column() {
        return column;
    }
}
