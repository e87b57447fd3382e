package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A run's {@code runs/RUN/run.json}, written last: the run is finished ({@code --resume} keeps a
 * run whose file names the same probe hash and whose files still have the checksums recorded here).
 * The reader is lenient: missing fields read as 0, {@code ""} or no checksums (older campaigns).
 *
 * @param run the run's name
 * @param seed the run's seed
 * @param probeSha256 SHA-256 (lower-case hex) of the run's probe executable
 * @param pairs pairs in the probe
 * @param windows windows in the probe
 * @param guestTicksPerNsTiming guest clock ticks per ns in the timing pass
 * @param guestTicksPerNsOff guest clock ticks per ns in the plugin-off pass
 * @param timingFooter the timing pass's plugin footer
 * @param finished ISO-8601 instant the run finished
 * @param fileSha256 SHA-256 (lower-case hex) of the run's result files by file name
 *     ({@link CampaignLayout.Run#checksummed()}), taken when the run finished; empty in older files
 * @param mode where the run was measured: {@code user} ({@code qemu-riscv64}) or {@code system}
 *     ({@code qemu-system-riscv64}); written only when not {@code user}
 */
public record FinishedRun(String run, long seed, String probeSha256, int pairs, int windows,
        double guestTicksPerNsTiming, double guestTicksPerNsOff, PluginRecords.Footer timingFooter, String finished,
        Map<String, String> fileSha256, String mode) {
    /**
     * Keeps the checksums in the order given, unmodifiable.
     *
     * @param run see {@link #run()}
     * @param seed see {@link #seed()}
     * @param probeSha256 see {@link #probeSha256()}
     * @param pairs see {@link #pairs()}
     * @param windows see {@link #windows()}
     * @param guestTicksPerNsTiming see {@link #guestTicksPerNsTiming()}
     * @param guestTicksPerNsOff see {@link #guestTicksPerNsOff()}
     * @param timingFooter see {@link #timingFooter()}
     * @param finished see {@link #finished()}
     * @param fileSha256 see {@link #fileSha256()}
     * @param mode see {@link #mode()}
     */
    public FinishedRun {
        fileSha256 = Collections.unmodifiableMap(new LinkedHashMap<>(fileSha256));
    }

    /**
     * A run measured in user mode.
     *
     * @param run see {@link #run()}
     * @param seed see {@link #seed()}
     * @param probeSha256 see {@link #probeSha256()}
     * @param pairs see {@link #pairs()}
     * @param windows see {@link #windows()}
     * @param guestTicksPerNsTiming see {@link #guestTicksPerNsTiming()}
     * @param guestTicksPerNsOff see {@link #guestTicksPerNsOff()}
     * @param timingFooter see {@link #timingFooter()}
     * @param finished see {@link #finished()}
     * @param fileSha256 see {@link #fileSha256()}
     */
    public FinishedRun(String run, long seed, String probeSha256, int pairs, int windows, double guestTicksPerNsTiming,
            double guestTicksPerNsOff, PluginRecords.Footer timingFooter, String finished, Map<String, String> fileSha256) {
        this(run, seed, probeSha256, pairs, windows, guestTicksPerNsTiming, guestTicksPerNsOff, timingFooter, finished,
                fileSha256, Manifest.USER_MODE);
    }

    /**
     * The file's text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode done = Json.object();
        done.put("run", run);
        done.put("seed", seed);
        done.put("probe_sha256", probeSha256);
        done.put("pairs", pairs);
        done.put("windows", windows);
        done.put("guest_ticks_per_ns_timing", guestTicksPerNsTiming);
        done.put("guest_ticks_per_ns_off", guestTicksPerNsOff);
        done.set("timing_footer", Json.footer(timingFooter));
        done.put("finished", finished);
        if (!Manifest.USER_MODE.equals(mode)) {
            done.put("mode", mode); // absent in user mode, so that user-mode runs are written as before
        }
        if (!fileSha256.isEmpty()) {
            ObjectNode sums = done.putObject("files_sha256");
            fileSha256.forEach(sums::put);
        }
        return Json.file(done);
    }

    /**
     * Writes the file through a temporary file and a rename.
     *
     * @param file usually {@link CampaignLayout.Run#finished()}
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }

    /**
     * Reads a {@code run.json}.
     *
     * @param file the file
     * @return what it holds
     * @throws BadInputException when the file is not JSON
     */
    public static FinishedRun read(Path file) {
        JsonNode r = Json.read(file);
        Map<String, String> sums = new LinkedHashMap<>();
        r.path("files_sha256").fields().forEachRemaining(e -> sums.put(e.getKey(), e.getValue().asText()));
        return new FinishedRun(r.path("run").asText(), r.path("seed").asLong(), r.path("probe_sha256").asText(),
                r.path("pairs").asInt(), r.path("windows").asInt(), r.path("guest_ticks_per_ns_timing").asDouble(),
                r.path("guest_ticks_per_ns_off").asDouble(), Json.footer(r.path("timing_footer")),
                r.path("finished").asText(), sums, r.path("mode").asText(Manifest.USER_MODE));
    }
}
