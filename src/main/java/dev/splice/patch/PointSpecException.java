package dev.splice.patch;

import dev.splice.base.BadInputException;

/**
 * A text that is no {@link PointSpec}: the message names the spec, the column and the problem;
 * {@link #column()} and {@link #problem()} let a caller place it in a larger text (a plan file's line).
 */
public final class PointSpecException extends BadInputException {
    private static final long serialVersionUID = 1L;

    /** The 1-based column of the problem in the spec. */
    private final int column;
    /** What is wrong, without the place. */
    private final String problem;

    /**
     * The error for a spec.
     *
     * @param spec the spec as written
     * @param column the 1-based column of the problem in it
     * @param problem what is wrong
     */
    public PointSpecException(String spec, int column, String problem) {
        super("point spec '" + spec + "', column " + column + ": " + problem);
        this.column = column;
        this.problem = problem;
    }

    /**
     * Where in the spec the problem is.
     *
     * @return the 1-based column
     */
    public int column() {
        return column;
    }

    /**
     * What is wrong.
     *
     * @return the problem, without the spec and column
     */
    public String problem() {
        return problem;
    }
}
