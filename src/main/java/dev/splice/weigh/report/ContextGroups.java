package dev.splice.weigh.report;

import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Where a context belongs in the report's grouped charts: its extension and execution pattern from
 * the context table, or, for a context the table does not know (another harness's), extension
 * {@code other} and the name after its first dot.
 */
final class ContextGroups {
    private static final ContextTable TABLE = ContextTable.load();

    private ContextGroups() {}

    /** The group key, {@code extension · pattern}. */
    static String group(String context) {
        return TABLE.context(context).map(c -> c.extension() + " · " + c.pattern().label()).orElseGet(() -> {
            int dot = context.indexOf('.');
            return "other · " + (dot < 0 ? "-" : context.substring(dot + 1));
        });
    }

    /** The slot's mnemonic, or the name before the first dot. */
    static String mnemonic(String context) {
        return TABLE.context(context).map(Context::mnemonic).orElseGet(() -> {
            int dot = context.indexOf('.');
            return dot < 0 ? context : context.substring(0, dot);
        });
    }

    /** The execution pattern's label, or null when the table does not know the context. */
    static String pattern(String context) {
        return TABLE.context(context).map(c -> c.pattern().label()).orElse(null);
    }

    /**
     * Items grouped by their context's group (groups sorted by key), each group sorted by {@code order}.
     *
     * @return group key to items, in order
     */
    static <T> Map<String, List<T>> byGroup(List<T> items, Function<T, String> context, Comparator<T> order) {
        Map<String, List<T>> out = new TreeMap<>();
        for (T t : items) {
            out.computeIfAbsent(group(context.apply(t)), g -> new ArrayList<>()).add(t);
        }
        out.values().forEach(l -> l.sort(order));
        return out;
    }
}
