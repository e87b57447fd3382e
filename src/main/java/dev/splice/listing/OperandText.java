package dev.splice.listing;

import java.util.ArrayList;
import java.util.List;

/**
 * Operand text handed to the encoder, built from source operands and synthesized ones, which
 * maps a column of the built text back to the source line (so that errors in rewritten
 * pseudo-instructions still point at what the user typed).
 */
final class OperandText {
    private final List<Operand> parts = new ArrayList<>(4);

    static OperandText of(Object... operands) {
        OperandText text = new OperandText();
        for (Object o : operands) {
            text.parts.add(o instanceof Operand op ? op : Operand.synthetic(String.valueOf(o)));
        }
        return text;
    }

    static OperandText of(List<Operand> operands) {
        OperandText text = new OperandText();
        text.parts.addAll(operands);
        return text;
    }

    int size() {
        return parts.size();
    }

    Operand get(int index) {
        return parts.get(index);
    }

    void set(int index, Operand operand) {
        parts.set(index, operand);
    }

    String text() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(parts.get(i).text());
        }
        return sb.toString();
    }

    /** The source column (1-based) for a 0-based column of {@link #text()}, or {@code fallback}. */
    int sourceColumn(int column, int fallback) {
        if (column < 0) {
            return fallback;
        }
        int start = 0;
        for (Operand part : parts) {
            int end = start + part.text().length();
            if (column < end + 2 || part == parts.get(parts.size() - 1)) {
                if (part.column() <= 0) {
                    return fallback;
                }
                return part.column() + Math.max(0, Math.min(column - start, part.text().length()));
            }
            start = end + 2;
        }
        return fallback;
    }
}
