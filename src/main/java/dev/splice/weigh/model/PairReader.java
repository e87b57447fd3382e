package dev.splice.weigh.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.base.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a campaign directory: {@code pairs.jsonl} (required), {@code pairs-off.jsonl} (optional: its
 * absence makes the plugin-off check unavailable) and the {@code contexts} array of
 * {@code manifest.json} (optional). Every refused row names file, line and field.
 */
public final class PairReader {
    /** Longest accepted line; a longer one is refused instead of being parsed. */
    static final int MAX_LINE_CHARS = 1 << 16;

    private final ObjectMapper json = new ObjectMapper();
    private final boolean skipBadRows;

    public PairReader(boolean skipBadRows) {
        this.skipBadRows = skipBadRows;
    }

    public Campaign read(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new BadInputException(dir + ": not a campaign directory");
        }
        Path on = dir.resolve("pairs.jsonl");
        if (!Files.isRegularFile(on)) {
            throw new BadInputException(on + ": missing (a campaign directory holds pairs.jsonl)");
        }
        List<BadRow> bad = new ArrayList<>();
        List<Pair> pairs = readFile(on, false, bad);
        Path off = dir.resolve("pairs-off.jsonl");
        boolean offPresent = Files.isRegularFile(off);
        List<Pair> offPairs = offPresent ? readFile(off, true, bad) : List.of();
        if (pairs.isEmpty()) {
            throw new BadInputException(on + ": no usable pairs");
        }
        return new Campaign(pairs, offPairs, bad, expectedContexts(dir.resolve("manifest.json")), offPresent);
    }

    private Set<String> expectedContexts(Path manifest) {
        Set<String> out = new LinkedHashSet<>();
        if (!Files.isRegularFile(manifest)) {
            return out;
        }
        JsonNode root;
        try {
            root = json.readTree(manifest.toFile());
        } catch (JsonProcessingException e) {
            throw new BadInputException(manifest + ": not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonNode contexts = root == null ? null : root.get("contexts");
        if (contexts != null && contexts.isArray()) {
            for (JsonNode c : contexts) {
                if (c.isTextual()) {
                    out.add(c.asText());
                } else if (c.isObject() && c.path("context").isTextual()) {
                    out.add(c.get("context").asText());
                }
            }
        }
        return out;
    }

    /** Reads one JSON-lines file; blank lines are allowed and skipped. */
    public List<Pair> readFile(Path file, boolean pluginOff, List<BadRow> bad) {
        List<Pair> out = new ArrayList<>();
        String name = file.getFileName().toString();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long lineNo = 0;
            String line;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    out.add(parse(line, pluginOff, name + ":" + lineNo));
                } catch (RowException e) {
                    if (!skipBadRows) {
                        throw new BadInputException(file + ":" + lineNo + ": " + e.getMessage()
                                + " (use --skip-bad-rows to skip and count such rows)");
                    }
                    bad.add(new BadRow(name, lineNo, e.getMessage()));
                }
            }
        } catch (java.nio.charset.MalformedInputException e) {
            throw new BadInputException(file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static final class RowException extends Exception {
        private static final long serialVersionUID = 1L;

        RowException(String message) {
            super(message);
        }
    }

    private Pair parse(String line, boolean pluginOff, String where) throws RowException {
        if (line.length() > MAX_LINE_CHARS) {
            throw new RowException("line longer than " + MAX_LINE_CHARS + " characters");
        }
        JsonNode row;
        try {
            row = json.readTree(line);
        } catch (JsonProcessingException e) {
            throw new RowException("not a JSON object: " + e.getOriginalMessage());
        }
        if (row == null || !row.isObject()) {
            throw new RowException("not a JSON object");
        }
        String run = text(row, "run");
        String context = text(row, "context");
        String baseline = text(row, "baseline");
        String key = row.hasNonNull("key") ? text(row, "key") : null;
        int batch = integer(row, "batch", 1);
        String order = text(row, "order");
        if (!order.equals("AB") && !order.equals("BA")) {
            throw new RowException("field 'order' must be \"AB\" or \"BA\", got " + row.get("order"));
        }
        int round = integer(row, "round", 0);
        double position = number(row, "position", false);
        if (position < 0 || position > 1) {
            throw new RowException("field 'position' must lie in [0,1], got " + position);
        }
        double probe = number(row, "probe_ns", pluginOff);
        double base = number(row, "baseline_ns", pluginOff);
        double probeGuest = number(row, "probe_guest_ns", true);
        double baseGuest = number(row, "baseline_guest_ns", true);
        if (pluginOff && (Double.isNaN(probeGuest) || Double.isNaN(baseGuest))) {
            throw new RowException("plugin-off row without 'probe_guest_ns'/'baseline_guest_ns'");
        }
        int translations = row.has("translations") && !row.get("translations").isNull()
                ? integer(row, "translations", 0) : 0;
        return new Pair(run, context, baseline, key, batch, order.equals("AB"), round, position,
                probe, base, probeGuest, baseGuest, translations, where);
    }

    private static String text(JsonNode row, String field) throws RowException {
        JsonNode v = row.get(field);
        if (v == null || v.isNull()) {
            throw new RowException("missing field '" + field + "'");
        }
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw new RowException("field '" + field + "' must be a non-empty string, got " + v);
        }
        return v.asText();
    }

    private static int integer(JsonNode row, String field, int min) throws RowException {
        JsonNode v = row.get(field);
        if (v == null || v.isNull()) {
            throw new RowException("missing field '" + field + "'");
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min) {
            throw new RowException("field '" + field + "' must be an integer >= " + min + ", got " + v);
        }
        return v.asInt();
    }

    /** A finite number; null gives NaN when allowed. */
    private static double number(JsonNode row, String field, boolean nullable) throws RowException {
        JsonNode v = row.get(field);
        if (v == null || v.isNull()) {
            if (nullable) {
                return Double.NaN;
            }
            throw new RowException("missing field '" + field + "'");
        }
        if (!v.isNumber() || !Double.isFinite(v.asDouble())) {
            throw new RowException("field '" + field + "' must be a finite number, got " + v);
        }
        return v.asDouble();
    }
}
