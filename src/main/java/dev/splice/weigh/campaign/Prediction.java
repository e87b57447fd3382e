package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;

/**
 * What {@code splice weigh predict} prints: the CPU time a catalogued run is predicted to take, with
 * an interval, and how each instruction class and block kind was priced (docs/weigh-measure.md,
 * "Predicting run time").
 *
 * @param predictedS predicted CPU time in seconds
 * @param lowS lower end of the interval
 * @param highS upper end of the interval
 * @param instructions executed instructions counted
 * @param unpricedInstructions executed instructions of classes that got no price
 * @param classes one line per instruction class, in catalog order
 * @param blocks one line per block kind, in catalog order
 * @param memory one line per level of the host's memory hierarchy beyond L1, loads and stores
 *     (empty when the catalogs do not give the run's dynamics)
 */
public record Prediction(double predictedS, double lowS, double highS, long instructions, long unpricedInstructions,
        List<Line> classes, List<Line> blocks, List<Line> memory) {
    /** The schema name and version of {@link #toJson()}. */
    public static final String SCHEMA = "splice.weigh.prediction/1";

    /**
     * Copies the lists.
     *
     * @param predictedS see {@link #predictedS()}
     * @param lowS see {@link #lowS()}
     * @param highS see {@link #highS()}
     * @param instructions see {@link #instructions()}
     * @param unpricedInstructions see {@link #unpricedInstructions()}
     * @param classes see {@link #classes()}
     * @param blocks see {@link #blocks()}
     * @param memory see {@link #memory()}
     */
    public Prediction {
        classes = List.copyOf(classes);
        blocks = List.copyOf(blocks);
        memory = List.copyOf(memory);
    }

    /**
     * A price in ns per execution: the precision-weighted mean of the contexts' weights, and the hull of
     * their bands.
     *
     * @param ns the point price
     * @param lowNs the lowest band end of the contexts
     * @param highNs the highest band end of the contexts
     * @param contexts the contexts priced from
     */
    public record Price(double ns, double lowNs, double highNs, List<String> contexts) {
        /**
         * Copies the list.
         *
         * @param ns see {@link #ns()}
         * @param lowNs see {@link #lowNs()}
         * @param highNs see {@link #highNs()}
         * @param contexts see {@link #contexts()}
         */
        public Price {
            contexts = List.copyOf(contexts);
        }
    }

    /**
     * One instruction class or block kind.
     *
     * @param name the class key or the block kind
     * @param count executions (blocks: times left through their end)
     * @param price the price, or null when unpriced
     * @param note how it was priced or why not
     */
    public record Line(String name, long count, Price price, String note) {
        /**
         * The line's time.
         *
         * @return count x price in seconds, 0 when unpriced
         */
        public double seconds() {
            return price == null ? 0 : count * price.ns() / 1e9;
        }
    }

    /**
     * The share of executed instructions without a price.
     *
     * @return unpriced / all executed instructions, 0 for an empty run
     */
    public double unpricedShare() {
        return instructions == 0 ? 0 : (double) unpricedInstructions / instructions;
    }

    /**
     * The prediction as JSON: {@code schema, predicted_s, low_s, high_s, instructions,
     * unpriced_instructions, unpriced_share}, then {@code classes}, {@code blocks} and {@code memory} with
     * {@code name, count, ns, low_ns, high_ns, seconds, contexts, note} ({@code ns} null when unpriced).
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("schema", SCHEMA);
        Json.num(root, "predicted_s", predictedS);
        Json.num(root, "low_s", lowS);
        Json.num(root, "high_s", highS);
        root.put("instructions", instructions);
        root.put("unpriced_instructions", unpricedInstructions);
        Json.num(root, "unpriced_share", unpricedShare());
        lines(root.putArray("classes"), classes);
        lines(root.putArray("blocks"), blocks);
        lines(root.putArray("memory"), memory);
        return Json.file(root);
    }

    private static void lines(ArrayNode array, List<Line> lines) {
        for (Line l : lines) {
            ObjectNode n = array.addObject();
            n.put("name", l.name());
            n.put("count", l.count());
            if (l.price() == null) {
                n.putNull("ns");
            } else {
                Json.num(n, "ns", l.price().ns());
                Json.num(n, "low_ns", l.price().lowNs());
                Json.num(n, "high_ns", l.price().highNs());
                Json.num(n, "seconds", l.seconds());
                Json.putTexts(n, "contexts", l.price().contexts());
            }
            n.put("note", l.note());
        }
    }

    /**
     * The prediction as a table: one line per priced or unpriced class, block kind and memory level with a count,
     * then the total.
     *
     * @return text lines, newline at the end
     */
    public String toText() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-22s %14s %10s %22s %10s  %s%n", "class / block kind", "count", "ns",
                "band ns", "ms", "priced from"));
        for (List<Line> group : List.of(classes, blocks, memory)) {
            for (Line l : group) {
                if (l.count() == 0) {
                    continue;
                }
                if (l.price() == null) {
                    out.append(String.format(Locale.ROOT, "%-22s %14d %10s %22s %10s  %s%n", l.name(), l.count(), "-",
                            "-", "-", l.note()));
                } else {
                    out.append(String.format(Locale.ROOT, "%-22s %14d %10.3f %22s %10.3f  %s%n", l.name(), l.count(),
                            l.price().ns(), String.format(Locale.ROOT, "[%.3f, %.3f]", l.price().lowNs(),
                                    l.price().highNs()), l.seconds() * 1e3, l.note()));
                }
            }
        }
        out.append(String.format(Locale.ROOT, "predicted %.6f s [%.6f, %.6f]; %d of %d executed instructions "
                + "unpriced (%.2f%%)%n", predictedS, lowS, highS, unpricedInstructions, instructions,
                100 * unpricedShare()));
        return out.toString();
    }
}
