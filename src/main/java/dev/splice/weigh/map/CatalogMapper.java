package dev.splice.weigh.map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.Catalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps context weights onto catalog classes with the publication policies of seed 003 section 12:
 * restricted classes (CSR, privileged, trap, cache-block) are never published as general weights;
 * a class with one context is strict when that context is high-confidence and exploratory (labelled
 * so) when it is not; several contexts that are equivalent give their mean (strict only when all
 * are high-confidence); several non-equivalent contexts are context-dependent and get no number.
 * Contexts that match no class are orphans and are reported.
 */
public final class CatalogMapper {
    public static final String SCHEMA = "splice.weigh.mapping/1";
    /** Contexts of one class are equivalent when their estimates spread by at most max(abs, rel * mean). */
    public static final double EQUIVALENCE_ABS_NS = 0.15;
    public static final double EQUIVALENCE_REL = 0.10;
    /** Extensions whose classes are restricted. */
    public static final Set<String> RESTRICTED_EXTENSIONS = Set.of("zicsr", "priv", "system", "zicbom", "zicboz", "zicbop");
    /** Mnemonics (first key component, after "c." for compressed forms) of restricted classes. */
    public static final Set<String> RESTRICTED_MNEMONICS = Set.of("csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
            "csrr", "csrw", "csrs", "csrc", "csrwi", "csrsi", "csrci", "rdtime", "rdcycle", "rdinstret", "rdtimeh",
            "rdcycleh", "rdinstreth", "frcsr", "fscsr", "frrm", "fsrm", "fsrmi", "frflags", "fsflags", "fsflagsi",
            "ecall", "ebreak", "mret", "sret", "uret", "dret", "wfi", "sfence", "hfence", "hinval", "sinval", "cbo",
            "prefetch");

    private CatalogMapper() {}

    /** A context as weights.json publishes it. */
    public record Weight(String context, String key, double estimate, double low, double high, Double weight,
            boolean high_quality, String publication) {}

    public record ClassResult(Catalog.Entry entry, String status, Double strictNs, Double measuredNs, double low,
            double high, List<Weight> contexts) {}

    public record Mapping(List<ClassResult> classes, List<Weight> orphans) {}

    public static List<Weight> readWeights(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new BadInputException(file + ": not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (root == null || !root.path("schema").asText().startsWith("splice.weigh.weights/")) {
            throw new BadInputException(file + ": not a weights.json (schema splice.weigh.weights/N expected)");
        }
        List<Weight> out = new ArrayList<>();
        int i = 0;
        for (JsonNode c : root.path("contexts")) {
            if (!c.path("context").isTextual()) {
                throw new BadInputException(file + ": contexts[" + i + "] has no 'context'");
            }
            out.add(new Weight(c.get("context").asText(), c.path("key").isTextual() ? c.get("key").asText() : null,
                    num(c, "estimate_ns"), num(c, "ci_low_ns"), num(c, "ci_high_ns"),
                    c.path("weight_ns").isNumber() ? c.get("weight_ns").asDouble() : null,
                    "high".equals(c.path("quality").asText()), c.path("publication").asText("")));
            i++;
        }
        return out;
    }

    private static double num(JsonNode c, String f) {
        return c.path(f).isNumber() ? c.get(f).asDouble() : Double.NaN;
    }

    public static boolean restricted(Catalog.Entry e) {
        if (e.extension() != null && RESTRICTED_EXTENSIONS.contains(e.extension().toLowerCase(java.util.Locale.ROOT))) {
            return true;
        }
        String[] parts = e.key().split("\\.");
        String mnemonic = parts[0].equals("c") && parts.length > 1 ? parts[1] : parts[0];
        return RESTRICTED_MNEMONICS.contains(mnemonic);
    }

    public static Mapping map(List<Weight> weights, Catalog catalog) {
        Map<String, List<Weight>> byClass = new LinkedHashMap<>();
        for (Catalog.Entry e : catalog.entries()) {
            byClass.put(e.key(), new ArrayList<>());
        }
        List<Weight> orphans = new ArrayList<>();
        for (Weight w : weights) {
            String cls = classOf(w, byClass.keySet());
            if (cls == null) {
                orphans.add(w);
            } else {
                byClass.get(cls).add(w);
            }
        }
        List<ClassResult> classes = new ArrayList<>();
        for (Catalog.Entry e : catalog.entries()) {
            classes.add(decide(e, byClass.get(e.key())));
        }
        return new Mapping(classes, orphans);
    }

    /** The explicit key, else the longest class key that equals the context or prefixes it at a dot. */
    static String classOf(Weight w, Set<String> keys) {
        if (w.key() != null) {
            return keys.contains(w.key()) ? w.key() : null;
        }
        String best = null;
        for (String k : keys) {
            if ((w.context().equals(k) || w.context().startsWith(k + ".")) && (best == null || k.length() > best.length())) {
                best = k;
            }
        }
        return best;
    }

    private static ClassResult decide(Catalog.Entry e, List<Weight> ws) {
        if (restricted(e)) {
            return new ClassResult(e, "restricted", null, null, Double.NaN, Double.NaN, ws);
        }
        if (ws.isEmpty()) {
            return new ClassResult(e, "unmeasured", null, null, Double.NaN, Double.NaN, ws);
        }
        if (ws.stream().anyMatch(w -> w.weight() == null)) {
            return new ClassResult(e, "unpublished", null, null, Double.NaN, Double.NaN, ws);
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (Weight w : ws) {
            min = Math.min(min, w.weight());
            max = Math.max(max, w.weight());
            sum += w.weight();
            low = Math.min(low, w.low());
            high = Math.max(high, w.high());
        }
        double mean = sum / ws.size();
        boolean overlap = ws.stream().allMatch(a -> ws.stream().allMatch(b -> a.low() <= b.high() && b.low() <= a.high()));
        if (ws.size() > 1 && !(overlap && max - min <= Math.max(EQUIVALENCE_ABS_NS, EQUIVALENCE_REL * Math.abs(mean)))) {
            return new ClassResult(e, "context-dependent", null, null, Double.NaN, Double.NaN, ws);
        }
        boolean allHigh = ws.stream().allMatch(Weight::high_quality);
        return new ClassResult(e, allHigh ? "strict" : "exploratory", allHigh ? mean : null, mean, low, high, ws);
    }

    public static String json(Mapping m) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("schema", SCHEMA);
        Map<String, Integer> counts = new java.util.TreeMap<>();
        m.classes().forEach(c -> counts.merge(c.status(), 1, Integer::sum));
        ObjectNode summary = root.putObject("summary");
        counts.forEach(summary::put);
        summary.put("orphans", m.orphans().size());
        ArrayNode classes = root.putArray("classes");
        for (ClassResult c : m.classes()) {
            ObjectNode o = classes.addObject();
            o.put("key", c.entry().key());
            o.put("status", c.status());
            put(o, "strict_ns", c.strictNs());
            put(o, "measured_ns", c.measuredNs());
            put(o, "ci_low_ns", Double.isFinite(c.low()) ? c.low() : null);
            put(o, "ci_high_ns", Double.isFinite(c.high()) ? c.high() : null);
            counts(o, c.entry());
            if (c.measuredNs() != null && c.entry().executed() >= 0) {
                o.put("executed_cost_ns", c.measuredNs() * c.entry().executed());
            }
            ArrayNode ctx = o.putArray("contexts");
            c.contexts().forEach(w -> ctx.add(w.context()));
        }
        ArrayNode orphans = root.putArray("orphans");
        m.orphans().forEach(w -> orphans.add(w.context()));
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void counts(ObjectNode o, Catalog.Entry e) {
        if (e.executed() >= 0) {
            o.put("executed", e.executed());
        }
        if (e.translated() >= 0) {
            o.put("translated", e.translated());
        }
        if (e.count() >= 0) {
            o.put("count", e.count());
        }
    }

    private static void put(ObjectNode o, String k, Double v) {
        if (v == null) {
            o.putNull(k);
        } else {
            o.put(k, v);
        }
    }

    public static String csv(Mapping m) {
        StringBuilder sb = new StringBuilder("key,status,strict_ns,measured_ns,ci_low_ns,ci_high_ns,executed,translated,count,contexts\n");
        for (ClassResult c : m.classes()) {
            sb.append(c.entry().key()).append(',').append(c.status()).append(',').append(opt(c.strictNs())).append(',')
                    .append(opt(c.measuredNs())).append(',').append(Double.isFinite(c.low()) ? c.low() : "").append(',')
                    .append(Double.isFinite(c.high()) ? c.high() : "").append(',')
                    .append(c.entry().executed() >= 0 ? c.entry().executed() : "").append(',')
                    .append(c.entry().translated() >= 0 ? c.entry().translated() : "").append(',')
                    .append(c.entry().count() >= 0 ? c.entry().count() : "").append(',')
                    .append(String.join(";", c.contexts().stream().map(Weight::context).toList())).append('\n');
        }
        for (Weight w : m.orphans()) {
            sb.append(w.context()).append(",orphan,,").append(opt(w.weight())).append(",,,,,,").append(w.context()).append('\n');
        }
        return sb.toString();
    }

    private static String opt(Double v) {
        return v == null ? "" : v.toString();
    }
}
