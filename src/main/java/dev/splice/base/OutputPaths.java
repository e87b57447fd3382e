package dev.splice.base;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checks an output path passes before any work starts: it is not one of the inputs (by device
 * and inode, through symlinks and hard links), and its directory exists (as {@code cp} and the
 * linkers require). {@code -} names standard output.
 */
public final class OutputPaths {
    /** The path that names standard output. */
    public static final String STANDARD_OUTPUT = "-";

    private OutputPaths() {}

    /**
     * Whether {@code output} names standard output ({@code -o -}).
     *
     * @param output an output path, or null
     * @return true for {@code -}
     */
    public static boolean isStandardOutput(Path output) {
        return output != null && output.toString().equals(STANDARD_OUTPUT);
    }

    /**
     * Refuses an output file that would overwrite an input, or whose directory is missing.
     *
     * @param output the output file (null or {@code -}: standard output, nothing to check)
     * @param inputs the files the command reads (nulls are ignored)
     * @throws BadInputException naming the output and the reason
     */
    public static void check(Path output, Path... inputs) {
        if (output == null || isStandardOutput(output)) {
            return;
        }
        Path dir = output.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new BadInputException(output + ": cannot write: directory " + dir + " does not exist");
        }
        if (!Files.exists(output)) {
            return;
        }
        for (Path input : inputs) {
            if (input != null && sameFile(output, input)) {
                throw new BadInputException(output + ": the output is the input " + input
                        + " (Splice never overwrites an input); choose another output file");
            }
        }
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false; // unreadable: the command's own read reports it
        }
    }
}
