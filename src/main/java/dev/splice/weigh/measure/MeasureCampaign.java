package dev.splice.weigh.measure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.PluginRecords;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbePair;
import dev.splice.weigh.probe.ProbeProgram;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code splice weigh measure}: runs a campaign of independent QEMU runs, each with a validation
 * pass, a timing pass and a plugin-off pass of the same probe executable, and writes the campaign
 * directory documented in docs/formats.md ("Measurement campaign").
 */
public final class MeasureCampaign {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINE = new ObjectMapper();

    /** What the campaign did. */
    public record Result(Path dir, boolean closed, int runs, int resumedRuns, int pairs, long windows) {}

    private final MeasureOptions options;
    private final ContextTable table;
    private final QemuRunner runner;
    private final QemuPlugin plugin;
    private final Progress progress;

    public MeasureCampaign(MeasureOptions options, ContextTable table, QemuPlugin plugin, Progress progress) {
        this.options = options;
        this.table = table;
        this.plugin = plugin;
        this.runner = new QemuRunner(plugin);
        this.progress = progress;
    }

    /** The contexts a pattern list selects that can be measured (a baseline, and qemu-riscv64 runs them). */
    public static List<Context> targets(ContextTable table, String patterns) {
        List<Context> selected = table.select(patterns);
        List<Context> out = selected.stream().filter(c -> c.baseline().isPresent() && c.runsOnQemu()).toList();
        if (out.isEmpty()) {
            throw new BadInputException("--contexts '" + patterns + "' selects no measurable context "
                    + "(root baselines and contexts qemu-riscv64 7.2 cannot run are left out)");
        }
        return out;
    }

    public Result run() {
        Instant started = Instant.now();
        Path dir = options.out();
        List<Context> targets = targets(table, options.contexts());
        List<RunPlan> plans = new ArrayList<>();
        for (int i = 1; i <= options.runs(); i++) {
            String id = String.format("run-%02d", i);
            long seed = options.runSeed(i);
            ProbeProgram.Probe probe = ProbeProgram.generate(table, targets, ProbeOptions.of(seed, options.rounds()));
            plans.add(new RunPlan(id, seed, probe, dir.resolve("runs").resolve(id), sha256(probe.elf())));
        }
        List<RunPlan> todo = new ArrayList<>();
        int resumed = 0;
        for (RunPlan p : plans) {
            if (options.resume() && finished(p)) {
                resumed++;
            } else {
                todo.add(p);
            }
        }
        int total = todo.size() * 3;
        AtomicInteger done = new AtomicInteger();
        progress.update(0, total);
        for (RunPlan p : todo) {
            prepare(p);
        }
        Map<String, Double> blocks = countBlocks(targets);
        validateAll(todo, done, total);
        for (RunPlan p : todo) {
            timeRun(p);
            progress.update(done.incrementAndGet(), total);
            offRun(p);
            progress.update(done.incrementAndGet(), total);
            writeRun(p);
        }
        return writeCampaign(plans, targets, started, resumed, blocks);
    }

    /** Translation blocks per kernel call, from a small probe of the same kernels (blocks.json). */
    private Map<String, Double> countBlocks(List<Context> targets) {
        ProbeProgram.Probe small = ProbeProgram.generate(table, targets, new ProbeOptions(options.seed(), 1, List.of(1), 2));
        Path elf = options.out().resolve("blocks-probe.elf");
        AtomicFiles.write(elf, small.elf());
        elf.toFile().setExecutable(true);
        Map<String, Double> blocks = BlockCounter.blocksPerCall(small, elf, plugin);
        ObjectNode root = LINE.createObjectNode();
        root.put("method", "qemu-riscv64 -d exec,nochain with the plugin loaded (count mode); blocks starting in a kernel "
                + "function per kernel call; probe blocks-probe.elf, every kernel called 1 + 2 (warm-up) times per window");
        ObjectNode contexts = root.putObject("contexts");
        blocks.forEach((k, v) -> {
            ObjectNode n = contexts.putObject(k);
            n.put("blocks_per_call", v);
            n.put("slots_per_block", v > 0 ? ProbeProgram.SLOTS / v : 0);
        });
        AtomicFiles.write(options.out().resolve("blocks.json"), json(root));
        return blocks;
    }

    private record RunPlan(String id, long seed, ProbeProgram.Probe probe, Path dir, String sha256) {
        Path elf() {
            return dir.resolve("probe.elf");
        }
    }

    private boolean finished(RunPlan p) {
        Path done = p.dir().resolve("run.json");
        if (!Files.isRegularFile(done)) {
            return false;
        }
        try {
            JsonNode n = LINE.readTree(done.toFile());
            return p.sha256().equals(n.path("probe_sha256").asText())
                    && Files.isRegularFile(p.dir().resolve("pairs.jsonl"))
                    && Files.isRegularFile(p.dir().resolve("pairs-off.jsonl"))
                    && Files.isRegularFile(p.dir().resolve("closure.json"));
        } catch (IOException e) {
            return false;
        }
    }

    private void prepare(RunPlan p) {
        try {
            Files.createDirectories(p.dir());
            Files.deleteIfExists(p.dir().resolve("run.json"));
            AtomicFiles.write(p.elf(), p.probe().elf());
            p.elf().toFile().setExecutable(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void validateAll(List<RunPlan> plans, AtomicInteger done, int total) {
        int jobs = Math.max(1, Math.min(options.jobs(), plans.size()));
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (RunPlan p : plans) {
                futures.add(pool.submit(() -> {
                    validate(p);
                    progress.update(done.incrementAndGet(), total);
                }));
            }
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BadInputException("interrupted");
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private PluginRecords pluginPass(RunPlan p, PluginRecords.Mode mode, String name) {
        Path out = p.dir().resolve(name + ".clock");
        QemuRunner.Result r = runner.run(p.elf(), List.of(), mode, Optional.empty(),
                new QemuRunner.Streams(Redirect.PIPE, Redirect.to(out.toFile()), Redirect.INHERIT),
                Optional.of(p.dir().resolve(name + ".records")));
        if (r.exitCode() != 0 || r.records().isEmpty()) {
            throw new BadInputException(p.elf() + ": the probe exited with status " + r.exitCode() + " in the "
                    + name + " pass");
        }
        return r.records().get();
    }

    private void validate(RunPlan p) {
        PluginRecords records = pluginPass(p, PluginRecords.Mode.VALIDATION, "validation");
        Closure.RunCheck check = Closure.check(p.probe(), records);
        AtomicFiles.write(p.dir().resolve("closure.json"), json(closureJson(p.id(), check)));
    }

    private void timeRun(RunPlan p) {
        pluginPass(p, PluginRecords.Mode.TIMING, "timing");
    }

    private void offRun(RunPlan p) {
        Path out = p.dir().resolve("off.clock");
        int exit = QemuRunner.runPlain(p.elf(), List.of(),
                new QemuRunner.Streams(Redirect.PIPE, Redirect.to(out.toFile()), Redirect.INHERIT));
        if (exit != 0) {
            throw new BadInputException(p.elf() + ": the probe exited with status " + exit + " in the plugin-off pass");
        }
    }

    /** Per-run pairs from the timing and plugin-off passes; run.json last, so a finished run is complete. */
    private void writeRun(RunPlan p) {
        try {
            int windows = p.probe().windows().size();
            PluginRecords timing = PluginRecords.read(p.dir().resolve("timing.records"));
            if (timing.timingWindows().size() != windows) {
                throw new BadInputException(p.dir().resolve("timing.records") + ": " + timing.timingWindows().size()
                        + " windows, the probe has " + windows);
            }
            GuestClock on = GuestClock.parse(Files.readAllBytes(p.dir().resolve("timing.clock")), windows,
                    p.dir().resolve("timing.clock").toString());
            GuestClock off = GuestClock.parse(Files.readAllBytes(p.dir().resolve("off.clock")), windows,
                    p.dir().resolve("off.clock").toString());
            StringBuilder onRows = new StringBuilder();
            StringBuilder offRows = new StringBuilder();
            List<ProbePair> pairs = p.probe().pairs();
            for (ProbePair pair : pairs) {
                double position = pairs.size() == 1 ? 0 : (double) pair.index() / (pairs.size() - 1);
                PluginRecords.TimingWindow pw = timing.timingWindows().get(pair.probeWindow());
                PluginRecords.TimingWindow bw = timing.timingWindows().get(pair.baselineWindow());
                ObjectNode row = row(p, pair, position);
                boolean timersOk = !pw.timerFailed() && !bw.timerFailed();
                row.put("probe_ns", timersOk ? pw.elapsedNs() : null);
                row.put("baseline_ns", timersOk ? bw.elapsedNs() : null);
                row.put("probe_guest_ns", round(on.windowNs(pair.probeWindow())));
                row.put("baseline_guest_ns", round(on.windowNs(pair.baselineWindow())));
                row.put("translations", pw.translations() + bw.translations());
                if (timersOk) {
                    onRows.append(LINE.writeValueAsString(row)).append('\n');
                }
                ObjectNode offRow = row(p, pair, position);
                offRow.putNull("probe_ns");
                offRow.putNull("baseline_ns");
                offRow.put("probe_guest_ns", round(off.windowNs(pair.probeWindow())));
                offRow.put("baseline_guest_ns", round(off.windowNs(pair.baselineWindow())));
                offRow.putNull("translations");
                offRows.append(LINE.writeValueAsString(offRow)).append('\n');
            }
            AtomicFiles.write(p.dir().resolve("pairs.jsonl"), onRows.toString());
            AtomicFiles.write(p.dir().resolve("pairs-off.jsonl"), offRows.toString());
            ObjectNode done = LINE.createObjectNode();
            done.put("run", p.id());
            done.put("seed", p.seed());
            done.put("probe_sha256", p.sha256());
            done.put("pairs", pairs.size());
            done.put("windows", windows);
            done.put("guest_ticks_per_ns_timing", on.ticksPerNs());
            done.put("guest_ticks_per_ns_off", off.ticksPerNs());
            done.set("timing_footer", footerJson(timing.footer()));
            done.put("finished", Instant.now().toString());
            AtomicFiles.write(p.dir().resolve("run.json"), json(done));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static double round(double ns) {
        return Math.round(ns * 1000) / 1000.0;
    }

    private ObjectNode row(RunPlan p, ProbePair pair, double position) {
        ObjectNode row = LINE.createObjectNode();
        row.put("run", p.id());
        row.put("context", pair.context());
        row.put("baseline", pair.baseline());
        row.put("batch", pair.batch());
        row.put("order", pair.order());
        row.put("round", pair.round());
        row.put("position", position);
        row.put("calls", pair.calls());
        row.put("probe_window", pair.probeWindow());
        row.put("baseline_window", pair.baselineWindow());
        return row;
    }

    private ObjectNode closureJson(String run, Closure.RunCheck check) {
        ObjectNode n = LINE.createObjectNode();
        n.put("run", run);
        n.put("closed", check.closed());
        n.put("windows_expected", check.windowsExpected());
        n.put("windows_seen", check.windowsSeen());
        n.put("pairs", check.pairs().size());
        n.put("pairs_closed", check.pairs().stream().filter(Closure.PairCheck::ok).count());
        n.set("footer", footerJson(check.footer()));
        ArrayNode failures = n.putArray("failures");
        check.pairs().stream().filter(c -> !c.ok()).limit(20).forEach(c -> {
            ObjectNode f = failures.addObject();
            f.put("pair", c.pair());
            f.put("context", c.context());
            f.put("target_count", c.targetCount());
            f.put("batch", c.batch());
            f.put("mismatch", c.mismatch());
        });
        return n;
    }

    private static ObjectNode footerJson(PluginRecords.Footer f) {
        ObjectNode n = LINE.createObjectNode();
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

    private Result writeCampaign(List<RunPlan> plans, List<Context> targets, Instant started, int resumed,
            Map<String, Double> blocks) {
        try {
            Path dir = options.out();
            StringBuilder on = new StringBuilder();
            StringBuilder off = new StringBuilder();
            ObjectNode closure = LINE.createObjectNode();
            boolean closed = true;
            String[] counters = {"nested_starts", "inactive_stops", "translation_failures", "timer_failures",
                "open_windows"};
            long[] sums = new long[counters.length];
            ArrayNode runs = LINE.createArrayNode();
            ArrayNode manifestRuns = LINE.createArrayNode();
            long windows = 0;
            int pairCount = 0;
            for (RunPlan p : plans) {
                on.append(Files.readString(p.dir().resolve("pairs.jsonl")));
                off.append(Files.readString(p.dir().resolve("pairs-off.jsonl")));
                JsonNode c = LINE.readTree(p.dir().resolve("closure.json").toFile());
                JsonNode r = LINE.readTree(p.dir().resolve("run.json").toFile());
                boolean timingClean = true;
                for (int i = 0; i < counters.length; i++) {
                    sums[i] += c.path("footer").path(counters[i]).asLong() + r.path("timing_footer").path(counters[i]).asLong();
                    timingClean &= r.path("timing_footer").path(counters[i]).asLong() == 0;
                }
                closed &= c.path("closed").asBoolean() && timingClean;
                runs.add(c);
                ObjectNode m = manifestRuns.addObject();
                m.put("run", p.id());
                m.put("seed", p.seed());
                m.put("probe_sha256", p.sha256());
                m.put("finished", r.path("finished").asText());
                m.put("guest_ticks_per_ns", r.path("guest_ticks_per_ns_timing").asDouble());
                windows += r.path("windows").asLong();
                pairCount += r.path("pairs").asInt();
            }
            closure.put("closed", closed);
            for (int i = 0; i < counters.length; i++) {
                closure.put(counters[i], sums[i]);
            }
            closure.set("runs", runs);
            AtomicFiles.write(dir.resolve("pairs.jsonl"), on.toString());
            AtomicFiles.write(dir.resolve("pairs-off.jsonl"), off.toString());
            AtomicFiles.write(dir.resolve("closure.json"), json(closure));
            ObjectNode manifest = manifest(plans, targets, started, manifestRuns);
            ObjectNode b = manifest.putObject("blocks_per_call");
            blocks.forEach(b::put);
            AtomicFiles.write(dir.resolve("manifest.json"), json(manifest));
            return new Result(dir, closed, plans.size(), resumed, pairCount, windows);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ObjectNode manifest(List<RunPlan> plans, List<Context> targets, Instant started, ArrayNode runs) {
        ObjectNode m = LINE.createObjectNode();
        m.put("schema", "splice.weigh.campaign/1");
        ObjectNode host = m.putObject("host");
        host.put("hostname", readTrimmed(Path.of("/proc/sys/kernel/hostname")));
        host.put("cpu_model", cpuModel());
        host.put("cpus", Runtime.getRuntime().availableProcessors());
        host.put("kernel", readTrimmed(Path.of("/proc/sys/kernel/osrelease")));
        host.put("qemu", qemuVersion());
        host.put("java", System.getProperty("java.version"));
        ObjectNode hashes = m.putObject("sha256");
        hashes.put("plugin", sha256(readAll(plugin.library())));
        hashes.put("context_table", sha256(contextTableBytes()));
        ObjectNode o = m.putObject("options");
        o.put("profile", options.profile());
        o.put("contexts", options.contexts());
        o.put("runs", options.runs());
        o.put("rounds", options.rounds());
        o.put("seed", options.seed());
        o.put("jobs", options.jobs());
        o.put("slots", ProbeProgram.SLOTS);
        ArrayNode batches = o.putArray("batches");
        ProbeOptions.DEFAULT_CALLS.forEach(c -> batches.add(c * ProbeProgram.SLOTS));
        o.put("warmup_calls", 2);
        ArrayNode contexts = m.putArray("contexts");
        plans.get(0).probe().contexts().forEach(contexts::add);
        ArrayNode selected = m.putArray("selected");
        targets.forEach(c -> selected.add(c.key()));
        ArrayNode baselines = m.putArray("baselines");
        for (String c : plans.get(0).probe().contexts()) {
            ObjectNode b = baselines.addObject();
            b.put("context", c);
            b.put("baseline", table.context(c).flatMap(Context::baseline).orElse(""));
        }
        m.put("started", started.toString());
        m.put("finished", Instant.now().toString());
        m.set("runs", runs);
        return m;
    }

    private static String cpuModel() {
        for (String line : readTrimmed(Path.of("/proc/cpuinfo")).split("\n")) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    private static String qemuVersion() {
        try {
            Process p = new ProcessBuilder(QemuRunner.QEMU, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out.lines().findFirst().orElse("unknown").trim();
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static byte[] contextTableBytes() {
        try (InputStream in = ContextTable.class.getResourceAsStream(ContextTable.RESOURCE)) {
            return in == null ? new byte[0] : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String readTrimmed(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static byte[] readAll(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String json(JsonNode n) {
        try {
            return JSON.writeValueAsString(n) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
