package dev.splice.patch;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.base.BadInputException;
import dev.splice.base.InputFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A plan: specs and their fragments, read from a file for plans too long for a command line
 * (docs/patch.md, "Plans"). Two forms, told apart by the first character that is not white space:
 *
 * <ul>
 *   <li>JSON, starting with <code>&#123;</code>: <code>&#123;"insertions": [&#123;"at": SPEC, "fragment": FILE&#125;,
 *       ...]&#125;</code>,
 *       where an entry may give {@code "code": TEXT} (the fragment's listing itself) instead of
 *       {@code "fragment"};
 *   <li>lines {@code SPEC FRAGMENT-FILE}, separated by white space; blank lines and lines starting
 *       with {@code #} are skipped.
 * </ul>
 *
 * <p>Fragment files are relative to the plan file's directory (absolute paths stay). Every error
 * names the plan as {@code file:line:column}.
 *
 * @param entries the insertions, in the plan's order
 */
public record PointPlan(List<Entry> entries) {
    /**
     * One insertion of a plan.
     *
     * @param spec what selects the points
     * @param fragment the fragment's listing text
     * @param fragmentName names the fragment in messages: its file, or {@code plan:line} for inline code
     */
    public record Entry(PointSpec spec, String fragment, String fragmentName) {}

    /**
     * Reads a plan file.
     *
     * @param plan the file
     * @return the plan
     * @throws BadInputException when the file, or a fragment it names, cannot be read, or an entry
     *     is malformed (with {@code file:line:column})
     */
    public static PointPlan read(Path plan) {
        String text = readText(plan, plan.toString());
        String trimmed = text.stripLeading();
        return new PointPlan(trimmed.startsWith("{") ? json(plan, text) : lines(plan, text));
    }

    private static List<Entry> lines(Path plan, String text) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].endsWith("\r") ? lines[n].substring(0, lines[n].length() - 1) : lines[n];
            String content = line.strip();
            if (content.isEmpty() || content.startsWith("#")) {
                continue;
            }
            int specColumn = line.indexOf(content) + 1;
            String[] fields = content.split("\\s+");
            if (fields.length != 2) {
                throw new BadInputException(plan + ":" + (n + 1) + ":" + specColumn + ": expected 'SPEC FRAGMENT-FILE', found "
                        + fields.length + " field" + (fields.length == 1 ? "" : "s"));
            }
            String where = plan + ":" + (n + 1) + ":";
            PointSpec spec = spec(plan, n + 1, specColumn, fields[0]);
            int fileColumn = line.indexOf(fields[1], specColumn - 1 + fields[0].length()) + 1;
            out.add(fragmentFile(plan, spec, fields[1], where + fileColumn));
        }
        return out;
    }

    private static List<Entry> json(Path plan, String text) {
        List<Entry> out = new ArrayList<>();
        ObjectMapper mapper = new ObjectMapper();
        try (JsonParser p = mapper.getFactory().createParser(text)) {
            expect(plan, p, p.nextToken() == JsonToken.START_OBJECT, "a JSON object");
            boolean seen = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonLocation at = p.currentTokenLocation();
                p.nextToken();
                if (!field.equals("insertions")) {
                    throw new BadInputException(place(plan, at) + ": unknown field '" + field + "' (expected 'insertions')");
                }
                expect(plan, p, p.currentToken() == JsonToken.START_ARRAY, "an array of insertions");
                seen = true;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    JsonLocation start = p.currentTokenLocation();
                    expect(plan, p, p.currentToken() == JsonToken.START_OBJECT, "an insertion object");
                    out.add(entry(plan, start, mapper.readTree(p)));
                }
            }
            if (!seen) {
                throw new BadInputException(plan + ":1:1: no 'insertions' array");
            }
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw new BadInputException((at == null ? plan + ":1:1" : place(plan, at)) + ": not valid JSON: "
                    + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadInputException(plan + ": cannot read: " + e.getMessage());
        }
        return out;
    }

    private static Entry entry(Path plan, JsonLocation start, JsonNode node) {
        String where = place(plan, start);
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!List.of("at", "fragment", "code").contains(name)) {
                throw new BadInputException(where + ": unknown field '" + name + "' (expected 'at', 'fragment' or 'code')");
            }
        }
        JsonNode at = node.get("at");
        if (at == null || !at.isTextual()) {
            throw new BadInputException(where + ": 'at' (the point spec, a string) is missing");
        }
        JsonNode fragment = node.get("fragment");
        JsonNode code = node.get("code");
        if ((fragment == null) == (code == null) || fragment != null && !fragment.isTextual() || code != null && !code.isTextual()) {
            throw new BadInputException(where + ": give exactly one of 'fragment' (a file) and 'code' (the listing), as a string");
        }
        PointSpec spec;
        try {
            spec = PointSpec.parse(at.asText());
        } catch (PointSpecException e) {
            throw new BadInputException(where + ": " + e.getMessage()); // the column is the spec's, inside its string
        }
        if (code != null) {
            return new Entry(spec, code.asText(), where);
        }
        return fragmentFile(plan, spec, fragment.asText(), where);
    }

    /** Parses a spec whose first character is at {@code column} of line {@code line} of the plan. */
    private static PointSpec spec(Path plan, int line, int column, String text) {
        try {
            return PointSpec.parse(text);
        } catch (PointSpecException e) {
            throw new BadInputException(plan + ":" + line + ":" + (column + e.column() - 1) + ": point spec '" + text
                    + "': " + e.problem());
        }
    }

    private static Entry fragmentFile(Path plan, PointSpec spec, String file, String where) {
        Path dir = plan.toAbsolutePath().getParent();
        Path path = dir == null ? Path.of(file) : dir.resolve(file);
        return new Entry(spec, readText(path, where + ": fragment " + file), path.toString());
    }

    private static String readText(Path path, String what) {
        try {
            return InputFiles.readString(path);
        } catch (BadInputException e) {
            throw new BadInputException(what + ": cannot read " + e.getMessage(), e);
        }
    }

    private static void expect(Path plan, JsonParser p, boolean ok, String what) {
        if (!ok) {
            throw new BadInputException(place(plan, p.currentTokenLocation()) + ": expected " + what);
        }
    }

    private static String place(Path plan, JsonLocation at) {
        return plan + ":" + at.getLineNr() + ":" + at.getColumnNr();
    }
}
