package dev.splice.listing;

import java.util.ArrayList;
import java.util.List;

/** One comma-separated operand of a source line, with its 1-based column (0 if synthesized). */
record Operand(String text, int column) {
    static Operand synthetic(String text) {
        return new Operand(text, 0);
    }

    /**
     * Splits {@code line[from, to)} at commas outside parentheses; trims each operand. An empty
     * range gives no operands; an empty operand (",," or a trailing comma) is kept as "" so that
     * the caller reports it.
     */
    static List<Operand> split(String line, int from, int to) {
        List<Operand> result = new ArrayList<>(4);
        while (from < to && Character.isWhitespace(line.charAt(from))) {
            from++;
        }
        while (to > from && Character.isWhitespace(line.charAt(to - 1))) {
            to--;
        }
        if (from >= to) {
            return result;
        }
        int depth = 0;
        int start = from;
        for (int i = from; i <= to; i++) {
            char c = i < to ? line.charAt(i) : ',';
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && (depth <= 0 || i == to)) {
                int s = start;
                int e = i;
                while (s < e && Character.isWhitespace(line.charAt(s))) {
                    s++;
                }
                while (e > s && Character.isWhitespace(line.charAt(e - 1))) {
                    e--;
                }
                result.add(new Operand(line.substring(s, e), s + 1));
                start = i + 1;
            }
        }
        return result;
    }
}
