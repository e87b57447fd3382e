package dev.splice.weigh.map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.base.BadInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An instruction-class catalog: semantic keys with how often they occur. Accepted forms (see
 * docs/formats.md): JSON with an array of objects under {@code classes} (or {@code keys},
 * {@code entries}, or as the root), each with {@code key} and optional counts {@code executed},
 * {@code translated}, {@code count} and {@code extension}; or CSV lines {@code key,count} with an
 * optional header.
 */
public record Catalog(List<Entry> entries) {
    /** Counts are -1 where the catalog does not say. */
    public record Entry(String key, long executed, long translated, long count, String extension) {}

    public static Catalog read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new BadInputException(file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String t = text.stripLeading();
        Catalog c = t.startsWith("{") || t.startsWith("[") ? json(file, text) : csv(file, text);
        Map<String, Entry> seen = new LinkedHashMap<>();
        for (Entry e : c.entries()) {
            if (seen.put(e.key(), e) != null) {
                throw new BadInputException(file + ": key '" + e.key() + "' appears twice");
            }
        }
        return c;
    }

    private static Catalog json(Path file, String text) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new BadInputException(file + ":" + e.getLocation().getLineNr() + ":" + e.getLocation().getColumnNr()
                    + ": not valid JSON: " + e.getOriginalMessage());
        }
        JsonNode array = root;
        if (root.isObject()) {
            array = null;
            for (String f : new String[] {"classes", "keys", "entries"}) {
                if (root.path(f).isArray()) {
                    array = root.get(f);
                    break;
                }
            }
            if (array == null) {
                throw new BadInputException(file + ": catalog object has no 'classes', 'keys' or 'entries' array");
            }
        }
        List<Entry> out = new ArrayList<>();
        int i = 0;
        for (JsonNode e : array) {
            String where = file + ": entry " + i++;
            if (!e.isObject() || !e.path("key").isTextual() || e.get("key").asText().isEmpty()) {
                throw new BadInputException(where + ": needs a non-empty string 'key'");
            }
            out.add(new Entry(e.get("key").asText(), count(e, "executed", where), count(e, "translated", where),
                    count(e, "count", where), e.path("extension").isTextual() ? e.get("extension").asText() : null));
        }
        return new Catalog(out);
    }

    private static long count(JsonNode e, String field, String where) {
        JsonNode v = e.get(field);
        if (v == null || v.isNull()) {
            return -1;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw new BadInputException(where + ": '" + field + "' must be a non-negative integer, got " + v);
        }
        return v.asLong();
    }

    private static Catalog csv(Path file, String text) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (i == 0 && f.length == 2 && f[0].strip().equals("key")) {
                continue;
            }
            if (f.length != 2 || f[0].strip().isEmpty()) {
                throw new BadInputException(file + ":" + (i + 1) + ": expected 'key,count', got '" + line + "'");
            }
            long count;
            try {
                count = Long.parseLong(f[1].strip());
            } catch (NumberFormatException e) {
                throw new BadInputException(file + ":" + (i + 1) + ": count '" + f[1].strip() + "' is not an integer");
            }
            if (count < 0) {
                throw new BadInputException(file + ":" + (i + 1) + ": negative count " + count);
            }
            out.add(new Entry(f[0].strip(), -1, -1, count, null));
        }
        return new Catalog(out);
    }
}
