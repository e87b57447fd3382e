package dev.splice.patch;

import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A fragment's text with its template fields ({@code {addr}}, {@code {func}}, {@code {offset}},
 * {@code {id}}, {@code {counter}}) found once: the fields are replaced per point, by their values
 * ({@link #substitute}) or by symbols the assembler resolves ({@link #symbolic}). Braces in
 * comments are not fields. See docs/patch.md, "Fragments".
 */
final class FragmentTemplate {
    /** The template fields. */
    enum Field {
        ADDR("addr"), FUNC("func"), OFFSET("offset"), ID("id"), COUNTER("counter");

        final String text;

        Field(String text) {
            this.text = text;
        }

        /** The symbol that stands for this field when a template is assembled once for every point. */
        String symbol() {
            return "__splice_field_" + text;
        }
    }

    /** One occurrence: the text between {@code start} and {@code end} (the braces included). */
    private record Use(int start, int end, Field field) {}

    private final String text;
    private final List<Use> uses;
    private final Set<Field> fields;

    private FragmentTemplate(String text, List<Use> uses) {
        this.text = text;
        this.uses = uses;
        this.fields = uses.isEmpty() ? Set.of() : EnumSet.noneOf(Field.class);
        for (Use u : uses) {
            fields.add(u.field);
        }
    }

    /** Finds the fields of {@code text}; an unknown {@code {name}} is refused with the fragment's name and line:column. */
    static FragmentTemplate parse(String text, String fragmentName) {
        List<Use> uses = List.of();
        int line = 1;
        int lineStart = 0;
        boolean comment = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
                lineStart = i + 1;
                comment = false;
            } else if (c == '#') {
                comment = true;
            } else if (c == '{' && !comment) {
                int close = text.indexOf('}', i);
                int newline = text.indexOf('\n', i);
                String name = close < 0 || newline >= 0 && newline < close ? null : text.substring(i + 1, close);
                Field field = name == null ? null : field(name);
                if (field == null) {
                    throw new PatchException(Reason.BAD_LISTING, fragmentName + ":" + line + ":" + (i - lineStart + 1)
                            + ": unknown template field " + (name == null ? "'{' without '}'" : "{" + name + "}")
                            + "; the fields are {addr}, {func}, {offset}, {id} and {counter}");
                }
                if (uses.isEmpty()) {
                    uses = new ArrayList<>(2);
                }
                uses.add(new Use(i, close + 1, field));
                i = close;
            }
        }
        return new FragmentTemplate(text, uses);
    }

    private static Field field(String name) {
        for (Field f : Field.values()) {
            if (f.text.equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** {@return the fields the text uses} */
    Set<Field> fields() {
        return fields;
    }

    /** {@return the text as written} */
    String text() {
        return text;
    }

    /** The text with every field replaced by its value at {@code point}. */
    String substitute(PointFields point) {
        return replace(point);
    }

    /** The text with every field replaced by its symbol ({@link Field#symbol}; not for {@code {func}}, a name). */
    String symbolic() {
        return replace(null);
    }

    private String replace(PointFields point) {
        if (uses.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16 * uses.size());
        int from = 0;
        for (Use u : uses) {
            out.append(text, from, u.start);
            out.append(point == null ? u.field.symbol() : point.value(u.field));
            from = u.end;
        }
        return out.append(text, from, text.length()).toString();
    }
}
