package dev.splice.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An operand template such as "rd, imm12(rs1)": literal text and operand fields in order. It is
 * both the printed form and the grammar the operand parser accepts.
 */
final class Template {
    /** A literal piece of text, or an operand field (optional ones carry their separator). */
    record Token(String literal, Field field, boolean optional, String separator, byte[] literalBytes,
            byte[] separatorBytes) {
        /** The printed texts as ASCII bytes too, for {@link Printer}'s byte path. */
        Token(String literal, Field field, boolean optional, String separator) {
            this(literal, field, optional, separator, literal == null ? null : TextBuffer.ascii(literal),
                    TextBuffer.ascii(separator));
        }

        boolean isField() {
            return field != null;
        }
    }

    private final String text;
    private final Token[] tokens;
    private final Field[] fields;

    private Template(String text, Token[] tokens) {
        this.text = text;
        this.tokens = tokens;
        List<Field> fs = new ArrayList<>();
        for (Token t : tokens) {
            if (t.isField()) {
                fs.add(t.field());
            }
        }
        this.fields = fs.toArray(new Field[0]);
    }

    String text() {
        return text;
    }

    Token[] tokens() {
        return tokens;
    }

    Field[] fields() {
        return fields;
    }

    /**
     * Whether a character belongs to a word of a template (a field name, a register, a number):
     * a letter, digit, '_' or '.'. ASCII is tested directly: the table is read at every start-up,
     * mostly by the interpreter, where {@link Character#isLetterOrDigit(char)} costs several calls.
     */
    static boolean isWordChar(char c) {
        if (c < 0x80) {
            return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.';
        }
        return Character.isLetterOrDigit(c);
    }

    /** Compiles a template; words that name a field become fields, "name?" an optional one. */
    static Template compile(String text, Map<String, Field> known) {
        List<Token> out = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (isWordChar(c)) {
                int j = i;
                while (j < text.length() && isWordChar(text.charAt(j))) {
                    j++;
                }
                String word = text.substring(i, j);
                Field f = known.get(word);
                if (f == null) {
                    lit.append(word);
                    i = j;
                    continue;
                }
                boolean optional = j < text.length() && text.charAt(j) == '?';
                if (optional) {
                    j++;
                }
                String sep = "";
                if (optional || f.kind == OperandKind.RM || f.kind == OperandKind.RMX || f.kind == OperandKind.VMASK) {
                    // An omitted optional operand takes its separator (from the last comma on) with it.
                    int comma = lit.lastIndexOf(",");
                    int from = comma < 0 ? 0 : comma;
                    sep = lit.substring(from);
                    lit.setLength(from);
                    optional = true;
                }
                if (lit.length() > 0) {
                    out.add(new Token(lit.toString(), null, false, ""));
                    lit.setLength(0);
                }
                out.add(new Token(null, f, optional, sep));
                i = j;
            } else {
                lit.append(c);
                i++;
            }
        }
        if (lit.length() > 0) {
            out.add(new Token(lit.toString(), null, false, ""));
        }
        return new Template(text, out.toArray(new Token[0]));
    }
}
