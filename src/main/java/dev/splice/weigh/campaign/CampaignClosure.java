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
 * A campaign's {@code closure.json}: the validation verdict of all runs (docs/formats.md,
 * "closure.json"). The counters add the validation and timing passes' footers of all runs.
 *
 * @param closed true only when every run closed and every timing footer is clean
 * @param nestedStarts start markers executed inside a window
 * @param inactiveStops stop markers executed with no window open
 * @param translationFailures instructions the plugin could not instrument
 * @param timerFailures windows whose clock could not be read
 * @param openWindows runs that exited inside a window
 * @param runs every run's verdict, in run order
 */
public record CampaignClosure(boolean closed, long nestedStarts, long inactiveStops, long translationFailures,
        long timerFailures, long openWindows, List<RunClosure> runs) {
    /**
     * Copies the runs.
     *
     * @param closed see {@link #closed()}
     * @param nestedStarts see {@link #nestedStarts()}
     * @param inactiveStops see {@link #inactiveStops()}
     * @param translationFailures see {@link #translationFailures()}
     * @param timerFailures see {@link #timerFailures()}
     * @param openWindows see {@link #openWindows()}
     * @param runs see {@link #runs()}
     */
    public CampaignClosure {
        runs = List.copyOf(runs);
    }

    /**
     * The file's text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode n = Json.object();
        n.put("closed", closed);
        n.put("nested_starts", nestedStarts);
        n.put("inactive_stops", inactiveStops);
        n.put("translation_failures", translationFailures);
        n.put("timer_failures", timerFailures);
        n.put("open_windows", openWindows);
        ArrayNode a = n.putArray("runs");
        runs.forEach(r -> a.add(r.node()));
        return Json.file(n);
    }

    /**
     * Writes the file through a temporary file and a rename.
     *
     * @param file usually {@link CampaignLayout#closure()}
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }

    /**
     * Reads a campaign's {@code closure.json} (leniently, as {@link RunClosure#read(Path)}).
     *
     * @param file the file
     * @return what it holds
     * @throws BadInputException when the file is not JSON
     */
    public static CampaignClosure read(Path file) {
        JsonNode n = Json.read(file);
        List<RunClosure> runs = new ArrayList<>();
        n.path("runs").forEach(r -> runs.add(RunClosure.of(r)));
        return new CampaignClosure(n.path("closed").asBoolean(), n.path("nested_starts").asLong(),
                n.path("inactive_stops").asLong(), n.path("translation_failures").asLong(),
                n.path("timer_failures").asLong(), n.path("open_windows").asLong(), runs);
    }
}
