package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code splice weigh map} writes: context weights put on a catalog's classes, as
 * {@code mapping.json} and {@code mapping.csv} (docs/formats.md, "mapping.json / mapping.csv").
 * Written only; no Splice command reads it back.
 *
 * @param classes one per catalog entry, in catalog order
 * @param orphans contexts that match no class, in weights order
 */
public record Mapping(List<ClassMapping> classes, List<Orphan> orphans) {
    /** The schema name and version written. */
    public static final String SCHEMA = "splice.weigh.mapping/1";

    /**
     * Copies the lists.
     *
     * @param classes see {@link #classes()}
     * @param orphans see {@link #orphans()}
     */
    public Mapping {
        classes = List.copyOf(classes);
        orphans = List.copyOf(orphans);
    }

    /** What a class gets. */
    public enum Status {
        /** All its contexts high-confidence and equivalent: a general weight. */
        STRICT("strict"),
        /** A low-confidence estimate: a measured number, no strict weight. */
        EXPLORATORY("exploratory"),
        /** Several contexts that are not equivalent: no number. */
        CONTEXT_DEPENDENT("context-dependent"),
        /** CSR, privileged, trap or cache-block classes: never a general weight. */
        RESTRICTED("restricted"),
        /** A context without a publishable weight. */
        UNPUBLISHED("unpublished"),
        /** No context. */
        UNMEASURED("unmeasured");

        private final String label;

        Status(String label) {
            this.label = label;
        }

        /**
         * The name in the files.
         *
         * @return e.g. {@code context-dependent}
         */
        public String label() {
            return label;
        }
    }

    /**
     * One catalog class and what it gets.
     *
     * @param entry the catalog's entry
     * @param status what it gets
     * @param strictNs the strict weight, or null
     * @param measuredNs the measured mean of its contexts, or null
     * @param ciLowNs the lowest interval end of its contexts, or null
     * @param ciHighNs the highest interval end of its contexts, or null
     * @param contexts the contexts it holds
     */
    public record ClassMapping(Catalog.Entry entry, Status status, Double strictNs, Double measuredNs, Double ciLowNs,
            Double ciHighNs, List<String> contexts) {
        /**
         * Copies the contexts.
         *
         * @param entry see {@link #entry()}
         * @param status see {@link #status()}
         * @param strictNs see {@link #strictNs()}
         * @param measuredNs see {@link #measuredNs()}
         * @param ciLowNs see {@link #ciLowNs()}
         * @param ciHighNs see {@link #ciHighNs()}
         * @param contexts see {@link #contexts()}
         */
        public ClassMapping {
            contexts = List.copyOf(contexts);
        }

        /**
         * What the class's executions cost.
         *
         * @return the measured weight times the executions, or null when either is unknown
         */
        public Double executedCostNs() {
            return measuredNs != null && entry.executed() >= 0 ? measuredNs * entry.executed() : null;
        }
    }

    /**
     * A context that matches no class.
     *
     * @param context the context key
     * @param weightNs its published weight, or null
     */
    public record Orphan(String context, Double weightNs) {}

    /**
     * Classes per status.
     *
     * @return counts by status label, sorted by label
     */
    public Map<String, Integer> statusCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        classes.forEach(c -> counts.merge(c.status().label(), 1, Integer::sum));
        return counts;
    }

    /**
     * The {@code mapping.json} text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("schema", SCHEMA);
        ObjectNode summary = root.putObject("summary");
        statusCounts().forEach(summary::put);
        summary.put("orphans", orphans.size());
        ArrayNode list = root.putArray("classes");
        for (ClassMapping c : classes) {
            ObjectNode o = list.addObject();
            o.put("key", c.entry().key());
            o.put("status", c.status().label());
            o.put("strict_ns", c.strictNs());
            o.put("measured_ns", c.measuredNs());
            o.put("ci_low_ns", c.ciLowNs());
            o.put("ci_high_ns", c.ciHighNs());
            Catalog.Entry e = c.entry();
            if (e.executed() >= 0) {
                o.put("executed", e.executed());
            }
            if (e.translated() >= 0) {
                o.put("translated", e.translated());
            }
            if (e.count() >= 0) {
                o.put("count", e.count());
            }
            if (c.executedCostNs() != null) {
                o.put("executed_cost_ns", c.executedCostNs());
            }
            Json.putTexts(o, "contexts", c.contexts());
        }
        Json.putTexts(root, "orphans", orphans.stream().map(Orphan::context).toList());
        return Json.file(root);
    }

    /**
     * The {@code mapping.csv} text: {@code key,status,strict_ns,measured_ns,ci_low_ns,ci_high_ns,
     * executed,translated,count,contexts} (contexts joined by {@code ;}), then one {@code orphan} row
     * per orphan context.
     *
     * @return CSV with a header line
     */
    public String toCsv() {
        StringBuilder sb = new StringBuilder("key,status,strict_ns,measured_ns,ci_low_ns,ci_high_ns,executed,translated,count,contexts\n");
        for (ClassMapping c : classes) {
            Catalog.Entry e = c.entry();
            sb.append(e.key()).append(',').append(c.status().label()).append(',').append(opt(c.strictNs())).append(',')
                    .append(opt(c.measuredNs())).append(',').append(opt(c.ciLowNs())).append(',')
                    .append(opt(c.ciHighNs())).append(',')
                    .append(e.executed() >= 0 ? e.executed() : "").append(',')
                    .append(e.translated() >= 0 ? e.translated() : "").append(',')
                    .append(e.count() >= 0 ? e.count() : "").append(',')
                    .append(String.join(";", c.contexts())).append('\n');
        }
        for (Orphan o : orphans) {
            sb.append(o.context()).append(",orphan,,").append(opt(o.weightNs())).append(",,,,,,").append(o.context())
                    .append('\n');
        }
        return sb.toString();
    }

    private static String opt(Double v) {
        return v == null ? "" : v.toString();
    }

    /**
     * Writes {@code mapping.json} and {@code mapping.csv}, each through a temporary file and a rename.
     *
     * @param dir the output directory
     */
    public void writeTo(Path dir) {
        AtomicFiles.write(dir.resolve("mapping.json"), toJson());
        AtomicFiles.write(dir.resolve("mapping.csv"), toCsv());
    }
}
