package dev.splice.patch;

import java.util.regex.Pattern;

/**
 * A shell glob over function names, as a regular expression: {@code *} any run of characters,
 * {@code ?} one character, {@code [abc]}, {@code [a-z]} and {@code [!abc]} a class, a backslash
 * quotes the next character; everything else stands for itself. The whole name must match.
 */
final class Glob {
    private Glob() {}

    /**
     * The pattern for {@code glob}; a malformed one (an unclosed class, a trailing backslash) is
     * refused with the column of the problem, counted from {@code column} (1-based) in {@code spec}.
     */
    static Pattern compile(String glob, String spec, int column) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                case '\\' -> {
                    if (i + 1 == glob.length()) {
                        throw new PointSpecException(spec, column + i, "a backslash ends the glob");
                    }
                    re.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
                }
                case '[' -> {
                    int close = glob.indexOf(']', i + 2);
                    if (close < 0) {
                        throw new PointSpecException(spec, column + i, "'[' opens a class that no ']' closes");
                    }
                    String body = glob.substring(i + 1, close);
                    boolean negated = body.startsWith("!");
                    re.append('[').append(negated ? "^" : "");
                    for (char b : (negated ? body.substring(1) : body).toCharArray()) {
                        // '-' keeps its range meaning; any other non-alphanumeric is quoted by a backslash.
                        re.append(b == '-' || Character.isLetterOrDigit(b) ? String.valueOf(b) : "\\" + b);
                    }
                    re.append(']');
                    i = close;
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }
}
