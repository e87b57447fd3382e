package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

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
 * @param burnInRounds probe rounds at the start of the run that were measured and written to
 *     {@code burn-in.jsonl}/{@code burn-in-off.jsonl}, not to the pairs the model reads (0 in older files)
 * @param pinning the CPU the timing and plugin-off passes were pinned to, or why not; null in older files
 * @param qemuCpu the {@code qemu-riscv64 -cpu} model the passes ran on ({@code weigh measure --cpu});
 *     empty for QEMU's default, and then absent from the file, so that such runs are written as before
 */
public record FinishedRun(String run, long seed, String probeSha256, int pairs, int windows,
        double guestTicksPerNsTiming, double guestTicksPerNsOff, PluginRecords.Footer timingFooter, String finished,
        Map<String, String> fileSha256, String mode, int burnInRounds, Pinning pinning, Optional<String> qemuCpu) {
    /**
     * Where the timed passes ran ({@code cpu_pinning} in run.json).
     *
     * @param pinned whether the passes were confined to one CPU
     * @param cpus the CPUs the QEMU processes were allowed, as the kernel lists them
     *     ({@code Cpus_allowed_list}): one CPU when pinned, the whole set otherwise
     * @param detail how it was done, or why pinning was not possible
     */
    public record Pinning(boolean pinned, String cpus, String detail) {}

    /**
     * A user-mode run without burn-in or pinning records (as written before session 7).
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
            double guestTicksPerNsOff, PluginRecords.Footer timingFooter, String finished,
            Map<String, String> fileSha256) {
        this(run, seed, probeSha256, pairs, windows, guestTicksPerNsTiming, guestTicksPerNsOff, timingFooter, finished,
                fileSha256, Manifest.USER_MODE, 0, null, Optional.empty());
    }

    /**
     * A run on QEMU's default CPU model.
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
     * @param burnInRounds see {@link #burnInRounds()}
     * @param pinning see {@link #pinning()}
     */
    public FinishedRun(String run, long seed, String probeSha256, int pairs, int windows, double guestTicksPerNsTiming,
            double guestTicksPerNsOff, PluginRecords.Footer timingFooter, String finished,
            Map<String, String> fileSha256, String mode, int burnInRounds, Pinning pinning) {
        this(run, seed, probeSha256, pairs, windows, guestTicksPerNsTiming, guestTicksPerNsOff, timingFooter, finished,
                fileSha256, mode, burnInRounds, pinning, Optional.empty());
    }

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
     * @param burnInRounds see {@link #burnInRounds()}
     * @param pinning see {@link #pinning()}
     * @param qemuCpu see {@link #qemuCpu()}
     */
    public FinishedRun {
        fileSha256 = Collections.unmodifiableMap(new LinkedHashMap<>(fileSha256));
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
        qemuCpu.ifPresent(cpu -> done.put("qemu_cpu", cpu));
        if (burnInRounds > 0) {
            done.put("burn_in_rounds", burnInRounds);
        }
        if (pinning != null) {
            ObjectNode pin = done.putObject("cpu_pinning");
            pin.put("pinned", pinning.pinned());
            pin.put("cpus", pinning.cpus());
            pin.put("detail", pinning.detail());
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
        JsonNode pin = r.path("cpu_pinning");
        Pinning pinning = pin.isObject()
                ? new Pinning(pin.path("pinned").asBoolean(), pin.path("cpus").asText(), pin.path("detail").asText())
                : null;
        return new FinishedRun(r.path("run").asText(), r.path("seed").asLong(), r.path("probe_sha256").asText(),
                r.path("pairs").asInt(), r.path("windows").asInt(), r.path("guest_ticks_per_ns_timing").asDouble(),
                r.path("guest_ticks_per_ns_off").asDouble(), Json.footer(r.path("timing_footer")),
                r.path("finished").asText(), sums, r.path("mode").asText(Manifest.USER_MODE), r.path("burn_in_rounds").asInt(),
                pinning, Optional.ofNullable(Json.text(r, "qemu_cpu")));
    }
}
