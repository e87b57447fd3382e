package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A campaign's {@code manifest.json}: what was measured, where and with what (docs/formats.md,
 * "manifest.json"). {@code splice weigh model} uses only {@link #contexts()}; the reader is lenient
 * (a missing or mistyped part reads as null, 0 or empty), so that any manifest that names its
 * contexts can be modelled.
 *
 * @param host the measuring machine, or null
 * @param sha256 hashes of the plugin and the context table, or null
 * @param options the campaign's options, or null
 * @param contexts measured context keys: the selection plus the baselines it needs, root baselines
 *     excluded (read from strings or from objects with a {@code context} string)
 * @param selected keys the patterns selected
 * @param baselines each measured context with its baseline
 * @param started ISO-8601 instant the campaign started, or null
 * @param finished ISO-8601 instant the campaign finished, or null
 * @param runs the runs, in order
 * @param blocksPerCall translation blocks per kernel call, per context (as {@code blocks.json})
 * @param mode where the probes ran: {@link #USER_MODE} ({@code qemu-riscv64}) or {@link #SYSTEM_MODE}
 *     ({@code qemu-system-riscv64} under Splice's monitor, docs/weigh-system.md); written only when not {@code user}
 * @param qemuCpu the {@code qemu-riscv64 -cpu} model every run of the campaign ran on ({@code weigh measure
 *     --cpu}, docs/contexts.md); empty for QEMU's default, and then absent from the file, so that such
 *     manifests are written as before
 */
public record Manifest(Host host, Hashes sha256, Options options, List<String> contexts, List<String> selected,
        List<Baseline> baselines, String started, String finished, List<Run> runs, Map<String, Double> blocksPerCall,
        String mode, Optional<String> qemuCpu) {
    /** The schema name and version written. */
    public static final String SCHEMA = "splice.weigh.campaign/1";
    /** {@link #mode()} of a campaign measured under {@code qemu-riscv64}. */
    public static final String USER_MODE = "user";
    /** {@link #mode()} of a campaign measured on {@code qemu-system-riscv64}. */
    public static final String SYSTEM_MODE = "system";

    /**
     * Copies every collection (keeping their order).
     *
     * @param host see {@link #host()}
     * @param sha256 see {@link #sha256()}
     * @param options see {@link #options()}
     * @param contexts see {@link #contexts()}
     * @param selected see {@link #selected()}
     * @param baselines see {@link #baselines()}
     * @param started see {@link #started()}
     * @param finished see {@link #finished()}
     * @param runs see {@link #runs()}
     * @param blocksPerCall see {@link #blocksPerCall()}
     * @param mode see {@link #mode()}
     * @param qemuCpu see {@link #qemuCpu()}
     */
    public Manifest {
        contexts = List.copyOf(contexts);
        selected = List.copyOf(selected);
        baselines = List.copyOf(baselines);
        runs = List.copyOf(runs);
        blocksPerCall = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(blocksPerCall));
    }

    /**
     * A manifest of a user-mode campaign.
     *
     * @param host see {@link #host()}
     * @param sha256 see {@link #sha256()}
     * @param options see {@link #options()}
     * @param contexts see {@link #contexts()}
     * @param selected see {@link #selected()}
     * @param baselines see {@link #baselines()}
     * @param started see {@link #started()}
     * @param finished see {@link #finished()}
     * @param runs see {@link #runs()}
     * @param blocksPerCall see {@link #blocksPerCall()}
     */
    public Manifest(Host host, Hashes sha256, Options options, List<String> contexts, List<String> selected,
            List<Baseline> baselines, String started, String finished, List<Run> runs, Map<String, Double> blocksPerCall) {
        this(host, sha256, options, contexts, selected, baselines, started, finished, runs, blocksPerCall, USER_MODE);
    }

    /**
     * A manifest of a campaign on QEMU's default CPU model.
     *
     * @param host see {@link #host()}
     * @param sha256 see {@link #sha256()}
     * @param options see {@link #options()}
     * @param contexts see {@link #contexts()}
     * @param selected see {@link #selected()}
     * @param baselines see {@link #baselines()}
     * @param started see {@link #started()}
     * @param finished see {@link #finished()}
     * @param runs see {@link #runs()}
     * @param blocksPerCall see {@link #blocksPerCall()}
     * @param mode see {@link #mode()}
     */
    public Manifest(Host host, Hashes sha256, Options options, List<String> contexts, List<String> selected,
            List<Baseline> baselines, String started, String finished, List<Run> runs, Map<String, Double> blocksPerCall,
            String mode) {
        this(host, sha256, options, contexts, selected, baselines, started, finished, runs, blocksPerCall, mode,
                Optional.empty());
    }

    /**
     * The measuring machine.
     *
     * @param hostname the host name
     * @param cpuModel the CPU model as /proc/cpuinfo names it
     * @param cpus available processors
     * @param kernel the kernel release
     * @param qemu the first line of {@code qemu-riscv64 --version} ({@code qemu-system-riscv64} in system mode)
     * @param java the Java version
     */
    public record Host(String hostname, String cpuModel, int cpus, String kernel, String qemu, String java) {}

    /**
     * SHA-256 hashes (lower-case hex) of what the measurement depends on.
     *
     * @param plugin the QEMU plugin library
     * @param contextTable the context table resource
     */
    public record Hashes(String plugin, String contextTable) {}

    /**
     * The campaign's options.
     *
     * @param profile {@code quick} or {@code formal}
     * @param contexts the context patterns
     * @param runs independent QEMU runs
     * @param rounds probe rounds per run
     * @param seed campaign seed
     * @param jobs validation passes run in parallel
     * @param slots target slots per kernel
     * @param batches target executions per window, per batch size
     * @param warmupCalls kernel calls of every warm-up window
     */
    public record Options(String profile, String contexts, int runs, int rounds, long seed, int jobs, int slots,
            List<Integer> batches, int warmupCalls) {
        /**
         * Copies the batches.
         *
         * @param profile see {@link #profile()}
         * @param contexts see {@link #contexts()}
         * @param runs see {@link #runs()}
         * @param rounds see {@link #rounds()}
         * @param seed see {@link #seed()}
         * @param jobs see {@link #jobs()}
         * @param slots see {@link #slots()}
         * @param batches see {@link #batches()}
         * @param warmupCalls see {@link #warmupCalls()}
         */
        public Options {
            batches = List.copyOf(batches);
        }
    }

    /**
     * A measured context and its baseline.
     *
     * @param context the context key
     * @param baseline the baseline's key ({@code ""} when it has none)
     */
    public record Baseline(String context, String baseline) {}

    /**
     * One run of the campaign.
     *
     * @param run the run's name
     * @param seed the run's seed
     * @param probeSha256 SHA-256 of the run's probe executable
     * @param finished ISO-8601 instant the run finished
     * @param guestTicksPerNs guest clock ticks per ns in the timing pass
     */
    public record Run(String run, long seed, String probeSha256, String finished, double guestTicksPerNs) {}

    /**
     * The file's text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode m = Json.object();
        m.put("schema", SCHEMA);
        if (!USER_MODE.equals(mode)) {
            m.put("mode", mode); // absent in user mode, so that user-mode manifests are written as before
        }
        qemuCpu.ifPresent(cpu -> m.put("qemu_cpu", cpu));
        if (host != null) {
            ObjectNode h = m.putObject("host");
            h.put("hostname", host.hostname());
            h.put("cpu_model", host.cpuModel());
            h.put("cpus", host.cpus());
            h.put("kernel", host.kernel());
            h.put("qemu", host.qemu());
            h.put("java", host.java());
        }
        if (sha256 != null) {
            ObjectNode s = m.putObject("sha256");
            s.put("plugin", sha256.plugin());
            s.put("context_table", sha256.contextTable());
        }
        if (options != null) {
            ObjectNode o = m.putObject("options");
            o.put("profile", options.profile());
            o.put("contexts", options.contexts());
            o.put("runs", options.runs());
            o.put("rounds", options.rounds());
            o.put("seed", options.seed());
            o.put("jobs", options.jobs());
            o.put("slots", options.slots());
            ArrayNode batches = o.putArray("batches");
            options.batches().forEach(batches::add);
            o.put("warmup_calls", options.warmupCalls());
        }
        Json.putTexts(m, "contexts", contexts);
        Json.putTexts(m, "selected", selected);
        ArrayNode b = m.putArray("baselines");
        for (Baseline x : baselines) {
            ObjectNode n = b.addObject();
            n.put("context", x.context());
            n.put("baseline", x.baseline());
        }
        m.put("started", started);
        m.put("finished", finished);
        ArrayNode r = m.putArray("runs");
        for (Run x : runs) {
            ObjectNode n = r.addObject();
            n.put("run", x.run());
            n.put("seed", x.seed());
            n.put("probe_sha256", x.probeSha256());
            n.put("finished", x.finished());
            n.put("guest_ticks_per_ns", x.guestTicksPerNs());
        }
        ObjectNode blocks = m.putObject("blocks_per_call");
        blocksPerCall.forEach(blocks::put);
        return Json.file(m);
    }

    /**
     * Writes the file through a temporary file and a rename.
     *
     * @param file usually {@code CAMPAIGN/manifest.json}
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }

    /**
     * Reads a manifest leniently.
     *
     * @param file the manifest
     * @return what the file holds
     * @throws BadInputException when the file is not JSON
     */
    public static Manifest read(Path file) {
        JsonNode root = Json.read(file);
        if (root == null || !root.isObject()) {
            return new Manifest(null, null, null, List.of(), List.of(), List.of(), null, null, List.of(), Map.of(), USER_MODE);
        }
        JsonNode h = root.path("host");
        Host host = h.isObject() ? new Host(Json.text(h, "hostname"), Json.text(h, "cpu_model"),
                h.path("cpus").asInt(), Json.text(h, "kernel"), Json.text(h, "qemu"), Json.text(h, "java")) : null;
        JsonNode s = root.path("sha256");
        Hashes hashes = s.isObject() ? new Hashes(Json.text(s, "plugin"), Json.text(s, "context_table")) : null;
        JsonNode o = root.path("options");
        Options options = null;
        if (o.isObject()) {
            List<Integer> batches = new ArrayList<>();
            for (JsonNode n : o.path("batches")) {
                if (n.canConvertToInt()) {
                    batches.add(n.asInt());
                }
            }
            options = new Options(Json.text(o, "profile"), Json.text(o, "contexts"), o.path("runs").asInt(),
                    o.path("rounds").asInt(), o.path("seed").asLong(), o.path("jobs").asInt(), o.path("slots").asInt(),
                    batches, o.path("warmup_calls").asInt());
        }
        List<String> contexts = new ArrayList<>();
        for (JsonNode c : root.path("contexts")) {
            if (c.isTextual()) {
                contexts.add(c.asText());
            } else if (c.isObject() && c.path("context").isTextual()) {
                contexts.add(c.get("context").asText());
            }
        }
        List<Baseline> baselines = new ArrayList<>();
        for (JsonNode n : root.path("baselines")) {
            baselines.add(new Baseline(Json.text(n, "context"), Json.text(n, "baseline")));
        }
        List<Run> runs = new ArrayList<>();
        for (JsonNode n : root.path("runs")) {
            runs.add(new Run(Json.text(n, "run"), n.path("seed").asLong(), Json.text(n, "probe_sha256"),
                    Json.text(n, "finished"), n.path("guest_ticks_per_ns").asDouble()));
        }
        Map<String, Double> blocks = new LinkedHashMap<>();
        root.path("blocks_per_call").fields().forEachRemaining(e -> {
            if (e.getValue().isNumber()) {
                blocks.put(e.getKey(), e.getValue().asDouble());
            }
        });
        return new Manifest(host, hashes, options, contexts, Json.texts(root.path("selected")), baselines,
                Json.text(root, "started"), Json.text(root, "finished"), runs, blocks, root.path("mode").asText(USER_MODE),
                Optional.ofNullable(Json.text(root, "qemu_cpu")));
    }
}
