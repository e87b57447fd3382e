package dev.splice.weigh.campaign;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON conventions of the weigh files: Jackson trees, files indented with a final newline,
 * JSON-lines rows compact; numbers in Jackson's shortest round-trip form, non-finite ones as null.
 * Readers are lenient where the files' consumers always were: a missing or mistyped optional field
 * reads as its default.
 */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {}

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** A whole file: indented, newline at the end. */
    static String file(JsonNode n) {
        try {
            return PRETTY.writeValueAsString(n) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One JSON-lines row, without its newline. */
    static String line(JsonNode n) {
        try {
            return MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads a JSON file (an empty one is a missing node); invalid JSON, a truncated file included, is
     * refused in one line as {@code FILE:LINE:COLUMN: not valid JSON: why}. The bytes must be UTF-8,
     * as the weigh files are written: Jackson's own encoding detection read a forged file as UTF-32
     * and failed with an unlocated I/O error.
     */
    static JsonNode read(Path file) {
        return parse(file, dev.splice.base.InputFiles.readString(file));
    }

    /**
     * Parses the text of a JSON file (an empty one is a missing node), refusing invalid JSON in one
     * line as {@code FILE:LINE:COLUMN: not valid JSON: why}.
     */
    static JsonNode parse(Path file, String text) {
        try {
            JsonNode n = MAPPER.readTree(text);
            return n == null ? MissingNode.getInstance() : n;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
            throw new BadInputException(file + where + ": not valid JSON: "
                    + e.getOriginalMessage().lines().findFirst().orElse(""));
        }
    }

    /** A finite number, or null. */
    static void num(ObjectNode o, String field, double v) {
        if (Double.isFinite(v)) {
            o.put(field, v);
        } else {
            o.putNull(field);
        }
    }

    /** A number field, NaN when absent, null or not a number. */
    static double num(JsonNode o, String field) {
        return o.path(field).isNumber() ? o.get(field).asDouble() : Double.NaN;
    }

    /** A string field, null when absent or not a string. */
    static String text(JsonNode o, String field) {
        return o.path(field).isTextual() ? o.get(field).asText() : null;
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : array) {
            if (n.isTextual()) {
                out.add(n.asText());
            }
        }
        return out;
    }

    static void putTexts(ObjectNode o, String field, List<String> values) {
        ArrayNode a = o.putArray(field);
        values.forEach(a::add);
    }

    static ObjectNode footer(PluginRecords.Footer f) {
        ObjectNode n = object();
        n.put("windows", f.windows());
        n.put("nested_starts", f.nestedStarts());
        n.put("inactive_stops", f.inactiveStops());
        n.put("translation_failures", f.translationFailures());
        n.put("timer_failures", f.timerFailures());
        n.put("open_windows", f.openWindows());
        n.put("vcpus", f.vcpus());
        n.put("translations", f.translations());
        return n;
    }

    /** A footer object; missing counters read as 0. */
    static PluginRecords.Footer footer(JsonNode n) {
        return new PluginRecords.Footer(n.path("windows").asLong(), n.path("nested_starts").asLong(),
                n.path("inactive_stops").asLong(), n.path("translation_failures").asLong(),
                n.path("timer_failures").asLong(), n.path("open_windows").asLong(), n.path("vcpus").asLong(),
                n.path("translations").asLong());
    }
}
