package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One run's validation verdict, {@code runs/RUN/closure.json} and an element of the campaign's
 * {@code closure.json} (docs/formats.md, "closure.json"). The reader is lenient: missing fields read
 * as 0, false or {@code ""}.
 *
 * @param run the run's name
 * @param closed whether the validation pass saw every window, every pair closed, and the footer is clean
 * @param windowsExpected windows the probe has
 * @param windowsSeen windows the validation pass recorded
 * @param pairs pairs checked
 * @param pairsClosed pairs that closed
 * @param footer the validation pass's plugin footer
 * @param failures the first pairs that did not close (at most {@link #MAX_FAILURES})
 */
public record RunClosure(String run, boolean closed, int windowsExpected, int windowsSeen, int pairs, long pairsClosed,
        PluginRecords.Footer footer, List<Failure> failures) {
    /** Failures listed per run. */
    public static final int MAX_FAILURES = 20;

    /**
     * Copies the failures.
     *
     * @param run see {@link #run()}
     * @param closed see {@link #closed()}
     * @param windowsExpected see {@link #windowsExpected()}
     * @param windowsSeen see {@link #windowsSeen()}
     * @param pairs see {@link #pairs()}
     * @param pairsClosed see {@link #pairsClosed()}
     * @param footer see {@link #footer()}
     * @param failures see {@link #failures()}
     */
    public RunClosure {
        failures = List.copyOf(failures);
    }

    /**
     * A pair that did not close.
     *
     * @param pair the pair's index in the run
     * @param context the pair's context
     * @param targetCount how many more times the target slots ran in the probe window than in the baseline window
     * @param batch how many more times they should have run
     * @param mismatch the first encoding whose counts do not close, or null when all close
     */
    public record Failure(int pair, String context, long targetCount, long batch, String mismatch) {}

    /**
     * The file's text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        return Json.file(node());
    }

    ObjectNode node() {
        ObjectNode n = Json.object();
        n.put("run", run);
        n.put("closed", closed);
        n.put("windows_expected", windowsExpected);
        n.put("windows_seen", windowsSeen);
        n.put("pairs", pairs);
        n.put("pairs_closed", pairsClosed);
        n.set("footer", Json.footer(footer));
        ArrayNode a = n.putArray("failures");
        for (Failure f : failures) {
            ObjectNode o = a.addObject();
            o.put("pair", f.pair());
            o.put("context", f.context());
            o.put("target_count", f.targetCount());
            o.put("batch", f.batch());
            o.put("mismatch", f.mismatch());
        }
        return n;
    }

    /**
     * Writes the file through a temporary file and a rename.
     *
     * @param file usually {@link CampaignLayout.Run#closure()}
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }

    /**
     * Reads a run's {@code closure.json}.
     *
     * @param file the file
     * @return what it holds
     * @throws BadInputException when the file is not JSON
     */
    public static RunClosure read(Path file) {
        return of(Json.read(file));
    }

    static RunClosure of(JsonNode c) {
        List<Failure> failures = new ArrayList<>();
        for (JsonNode f : c.path("failures")) {
            failures.add(new Failure(f.path("pair").asInt(), Json.text(f, "context"), f.path("target_count").asLong(),
                    f.path("batch").asLong(), Json.text(f, "mismatch")));
        }
        return new RunClosure(c.path("run").asText(), c.path("closed").asBoolean(), c.path("windows_expected").asInt(),
                c.path("windows_seen").asInt(), c.path("pairs").asInt(), c.path("pairs_closed").asLong(),
                Json.footer(c.path("footer")), failures);
    }
}
