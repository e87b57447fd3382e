package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A campaign's {@code design.json}: how many target slots each context's kernel calls run, chosen so
 * that its longest window has a bounded duration (issue 12: an interrupt hits a window in proportion
 * to its length; docs/weigh-measure.md, "Windows sized per context"). {@code --resume} reads it back,
 * so that resumed runs get the same probe; the pairs carry the sizes too ({@code batch = calls x slots}).
 *
 * @param targetNs the longest window's duration the sizes aim at, in ns of the timing pass (0: every kernel
 *     at the largest size, as campaigns before the design)
 * @param calls kernel calls per window of each batch, smallest first
 * @param method how the per-slot costs were measured
 * @param contexts per measured context, in probe order
 */
public record WindowDesign(long targetNs, List<Integer> calls, String method, Map<String, Size> contexts) {
    /** The schema name and version written. */
    public static final String SCHEMA = "splice.weigh.window-design/1";

    /**
     * Copies the collections, keeping their order.
     *
     * @param targetNs see {@link #targetNs()}
     * @param calls see {@link #calls()}
     * @param method see {@link #method()}
     * @param contexts see {@link #contexts()}
     */
    public WindowDesign {
        calls = List.copyOf(calls);
        contexts = Collections.unmodifiableMap(new LinkedHashMap<>(contexts));
    }

    /**
     * One context's size.
     *
     * @param nsPerSlot the pilot's time per target slot of the costlier kernel of the context's pair (probe or
     *     baseline), NaN when not measured
     * @param slots target slots per kernel call of the context's pairs
     */
    public record Size(double nsPerSlot, int slots) {
        /**
         * The expected duration of the context's longest window.
         *
         * @param maxCalls kernel calls of the largest batch
         * @return ns
         */
        public double longestWindowNs(int maxCalls) {
            return nsPerSlot * slots * maxCalls;
        }
    }

    /**
     * Slots per kernel call of every context.
     *
     * @return context key to slots
     */
    public Map<String, Integer> slots() {
        Map<String, Integer> out = new LinkedHashMap<>();
        contexts.forEach((k, v) -> out.put(k, v.slots()));
        return out;
    }

    /**
     * The file's text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("schema", SCHEMA);
        root.put("target_window_ns", targetNs);
        calls.forEach(root.putArray("calls")::add);
        root.put("method", method);
        int maxCalls = calls.get(calls.size() - 1);
        ObjectNode c = root.putObject("contexts");
        contexts.forEach((k, v) -> {
            ObjectNode n = c.putObject(k);
            Json.num(n, "ns_per_slot", v.nsPerSlot());
            n.put("slots", v.slots());
            Json.num(n, "longest_window_ns", Math.round(v.longestWindowNs(maxCalls) * 10) / 10.0);
        });
        return Json.file(root);
    }

    /**
     * Writes the file through a temporary file and a rename.
     *
     * @param file usually {@link CampaignLayout#design()}
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }

    /**
     * Reads a design.json.
     *
     * @param file the file
     * @return the design
     * @throws BadInputException when the file does not parse or is not a window design
     */
    public static WindowDesign read(Path file) {
        JsonNode root = Json.read(file);
        if (!SCHEMA.equals(Json.text(root, "schema"))) {
            throw new BadInputException(file + ": not a window design (schema " + SCHEMA + ")");
        }
        List<Integer> calls = new java.util.ArrayList<>();
        root.path("calls").forEach(n -> calls.add(n.asInt()));
        Map<String, Size> contexts = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("contexts").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            int slots = e.getValue().path("slots").asInt();
            if (slots < 1) {
                throw new BadInputException(file + ": context " + e.getKey() + " has no slots (at least 1)");
            }
            contexts.put(e.getKey(), new Size(Json.num(e.getValue(), "ns_per_slot"), slots));
        }
        if (calls.isEmpty()) {
            throw new BadInputException(file + ": no calls");
        }
        return new WindowDesign(root.path("target_window_ns").asLong(), calls, Json.text(root, "method"), contexts);
    }
}
