package dev.splice.weigh.campaign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes {@code pairs.jsonl} and {@code pairs-off.jsonl}: one {@link PairRow} as one
 * JSON object per line (docs/formats.md, "Campaign input" and "Pair rows as written").
 *
 * <p>Written fields, in order: {@code run, context, baseline, key} (only when given), {@code batch,
 * order, round, position, calls, probe_window, baseline_window} (the last three only when the row
 * has {@link PairRow.Windows}), {@code probe_ns, baseline_ns} (integers when whole, as the plugin's
 * clock gives them), {@code probe_guest_ns, baseline_guest_ns, translations}; non-finite times and
 * unobserved translations are null.
 *
 * <p>The reader ignores fields it does not know and blank lines; any other deviation refuses the
 * row with its field.
 */
public final class PairRows {
    /** Longest accepted line; a longer one is refused instead of being parsed. */
    public static final int MAX_LINE_CHARS = 1 << 16;

    /** Whole-number times below this are written as JSON integers. */
    private static final double EXACT_LONG = 0x1p53;

    private PairRows() {}

    /**
     * One row as written, without its newline.
     *
     * @param r the row
     * @return a compact JSON object
     */
    public static String line(PairRow r) {
        ObjectNode row = Json.object();
        row.put("run", r.run());
        row.put("context", r.context());
        row.put("baseline", r.baseline());
        if (r.key() != null) {
            row.put("key", r.key());
        }
        row.put("batch", r.batch());
        row.put("order", r.order().name());
        row.put("round", r.round());
        row.put("position", r.position());
        if (r.windows() != null) {
            row.put("calls", r.windows().calls());
            row.put("probe_window", r.windows().probeWindow());
            row.put("baseline_window", r.windows().baselineWindow());
        }
        wholeOrNum(row, "probe_ns", r.probeNs());
        wholeOrNum(row, "baseline_ns", r.baselineNs());
        Json.num(row, "probe_guest_ns", r.probeGuestNs());
        Json.num(row, "baseline_guest_ns", r.baselineGuestNs());
        if (r.translations() != null) {
            row.put("translations", r.translations().intValue());
        } else {
            row.putNull("translations");
        }
        return Json.line(row);
    }

    /**
     * Rows as a JSON-lines file's text.
     *
     * @param rows the rows, in file order
     * @return one line per row, each ending in a newline
     */
    public static String lines(List<PairRow> rows) {
        StringBuilder sb = new StringBuilder();
        for (PairRow r : rows) {
            sb.append(line(r)).append('\n');
        }
        return sb.toString();
    }

    private static void wholeOrNum(ObjectNode row, String field, double v) {
        if (Double.isFinite(v) && v == Math.rint(v) && Math.abs(v) < EXACT_LONG) {
            row.put(field, (long) v);
        } else {
            Json.num(row, field, v);
        }
    }

    /**
     * Reads one JSON-lines file.
     *
     * @param file {@code pairs.jsonl} or {@code pairs-off.jsonl}
     * @param pluginOff whether these are plugin-off rows (thread CPU times may be null, guest times
     *     are required)
     * @param skipBadRows skip malformed rows, adding them to {@code bad}, instead of refusing the file
     * @param bad receives the skipped rows
     * @return the rows, in file order
     * @throws BadInputException at the first malformed row ({@code FILE:LINE: field '...' ...}) unless
     *     bad rows are skipped, or when the file is not UTF-8 text
     */
    public static List<PairRow> read(Path file, boolean pluginOff, boolean skipBadRows, List<BadRow> bad) {
        List<PairRow> out = new ArrayList<>();
        String name = file.getFileName().toString();
        dev.splice.base.InputFiles.requireRegular(file);
        // names and windows repeat on every row of a context: one instance each (a formal campaign's
        // 777,600 rows held 2.4 million Strings, 130 MB, before)
        Map<Object, Object> shared = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long lineNo = 0;
            String line;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    out.add(parse(line, pluginOff, shared));
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

    @SuppressWarnings("unchecked")
    private static <T> T shared(Map<Object, Object> shared, T value) {
        return value == null ? null : (T) shared.computeIfAbsent(value, v -> v);
    }

    private static PairRow parse(String line, boolean pluginOff, Map<Object, Object> shared) throws RowException {
        if (line.length() > MAX_LINE_CHARS) {
            throw new RowException("line longer than " + MAX_LINE_CHARS + " characters");
        }
        JsonNode row;
        try {
            row = Json.MAPPER.readTree(line);
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
        Integer translations = row.has("translations") && !row.get("translations").isNull()
                ? integer(row, "translations", 0) : null;
        return new PairRow(shared(shared, run), shared(shared, context), shared(shared, baseline), shared(shared, key),
                batch, PairRow.Order.valueOf(order), round, position, shared(shared, windows(row)), probe, base,
                probeGuest, baseGuest, translations);
    }

    /** The pair's windows when the row gives all three as integers (informational: never refused). */
    private static PairRow.Windows windows(JsonNode row) {
        JsonNode calls = row.get("calls");
        JsonNode probe = row.get("probe_window");
        JsonNode baseline = row.get("baseline_window");
        if (calls == null || probe == null || baseline == null) {
            return null;
        }
        for (JsonNode v : new JsonNode[] {calls, probe, baseline}) {
            if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                return null;
            }
        }
        return new PairRow.Windows(calls.asInt(), probe.asInt(), baseline.asInt());
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
