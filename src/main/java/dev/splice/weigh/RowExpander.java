package dev.splice.weigh;

import dev.splice.base.BadInputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Template rows of {@code contexts.tsv}: a line {@code @expand<TAB>GROUP<TAB>GROUP...} makes every
 * following row, up to {@code @end} or the next {@code @expand}, stand for one row per combination of
 * the groups' values, {@code {name}} in any column replaced by the value. A group is
 * {@code name=v1,v2} or, for values that go together, {@code a/b=a1/b1,a2/b2}; the combinations are
 * the product of the groups, the first group varying slowest (docs/contexts.md, "Template rows").
 * It keeps the vector block to a few dozen lines: its configurations are listed once, not once per
 * instruction.
 */
final class RowExpander {
    /** The line prefix that starts a template block. */
    static final String DIRECTIVE = "@expand";
    /** The line that ends a template block. */
    static final String END = "@end";
    /** Outside a template block: each row stands for itself. */
    static final RowExpander NONE = new RowExpander(List.of(Map.of()));

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z][a-z0-9]*)\\}");

    /**
     * One row a template stands for.
     *
     * @param text the row with its placeholders replaced
     * @param binding the values it was expanded with, empty outside a template block
     */
    record Row(String text, Map<String, String> binding) {
        /**
         * Where the row came from, for error messages.
         *
         * @return {@code " (expanded with a=1, b=2)"}, empty outside a template block
         */
        String where() {
            if (binding.isEmpty()) {
                return "";
            }
            java.util.StringJoiner w = new java.util.StringJoiner(", ", " (expanded with ", ")");
            binding.forEach((k, v) -> w.add(k + "=" + v));
            return w.toString();
        }
    }

    private final List<Map<String, String>> bindings;

    private RowExpander(List<Map<String, String>> bindings) {
        this.bindings = bindings;
    }

    /** Reads an {@code @expand} line; {@code source} and {@code line} locate errors. */
    static RowExpander parse(String text, String source, int line) {
        String[] groups = text.split("\t", -1);
        if (!groups[0].equals(DIRECTIVE) || groups.length < 2) {
            throw error(source, line, "expected '" + DIRECTIVE + "<TAB>name=v1,v2<TAB>...'");
        }
        List<Map<String, String>> product = new ArrayList<>();
        product.add(new LinkedHashMap<>());
        for (int g = 1; g < groups.length; g++) {
            int eq = groups[g].indexOf('=');
            if (eq <= 0 || eq == groups[g].length() - 1) {
                throw error(source, line, "group '" + groups[g] + "' is not name=values");
            }
            String[] names = groups[g].substring(0, eq).split("/", -1);
            for (String name : names) {
                if (!NAME.matcher(name).matches() || name.equals("x") || name.equals("f")) {
                    throw error(source, line, "bad placeholder name '" + name
                            + "' (lower-case letters and digits; x and f are the slot's rotating registers)");
                }
                if (product.get(0).containsKey(name)) {
                    throw error(source, line, "placeholder '" + name + "' given twice");
                }
            }
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> outer : product) {
                for (String tuple : groups[g].substring(eq + 1).split(",", -1)) {
                    String[] values = tuple.split("/", -1);
                    if (values.length != names.length) {
                        throw error(source, line, "'" + tuple + "' has " + values.length + " values for "
                                + names.length + " names " + String.join("/", names));
                    }
                    Map<String, String> binding = new LinkedHashMap<>(outer);
                    for (int k = 0; k < names.length; k++) {
                        binding.put(names[k], values[k]);
                    }
                    next.add(binding);
                }
            }
            product = next;
        }
        return new RowExpander(product);
    }

    /**
     * The rows a template row stands for, in binding order.
     *
     * @param template a table row, with {@code {name}} placeholders inside a template block
     * @param source names the table in error messages
     * @param line the row's line
     * @return one row per binding (the row itself outside a template block)
     * @throws BadInputException for a placeholder the block does not define
     */
    List<Row> expand(String template, String source, int line) {
        if (this == NONE) {
            return List.of(new Row(template, Map.of()));
        }
        Map<String, String> names = bindings.get(0);
        java.util.regex.Matcher m = PLACEHOLDER.matcher(template);
        while (m.find()) {
            String name = m.group(1);
            if (!name.equals("x") && !name.equals("f") && !names.containsKey(name)) {
                throw error(source, line, "placeholder '{" + name + "}' is not defined by an " + DIRECTIVE + " line");
            }
        }
        List<Row> out = new ArrayList<>(bindings.size());
        for (Map<String, String> binding : bindings) {
            out.add(new Row(substitute(template, binding), binding));
        }
        return out;
    }

    /** The template with each {@code {name}} of the binding replaced, in one pass ({x} and {f} stay). */
    private static String substitute(String template, Map<String, String> binding) {
        StringBuilder out = new StringBuilder(template.length() + 32);
        int from = 0;
        int open;
        while ((open = template.indexOf('{', from)) >= 0) {
            int close = template.indexOf('}', open);
            String value = close < 0 ? null : binding.get(template.substring(open + 1, close));
            if (value == null) {
                out.append(template, from, open + 1);
                from = open + 1;
            } else {
                out.append(template, from, open).append(value);
                from = close + 1;
            }
        }
        return out.append(template, from, template.length()).toString();
    }

    private static BadInputException error(String source, int line, String why) {
        return new BadInputException(source + ":" + line + ": " + why);
    }
}
