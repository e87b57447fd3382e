package dev.splice.weigh.measure;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.BlockCounts;
import dev.splice.weigh.campaign.CampaignClosure;
import dev.splice.weigh.campaign.CampaignLayout;
import dev.splice.weigh.campaign.FinishedRun;
import dev.splice.weigh.campaign.GuestClock;
import dev.splice.weigh.campaign.Manifest;
import dev.splice.weigh.campaign.PairRow;
import dev.splice.weigh.campaign.PairRows;
import dev.splice.weigh.campaign.RunClosure;
import dev.splice.weigh.campaign.WindowDesign;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbePair;
import dev.splice.weigh.probe.ProbeProgram;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
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
    /**
     * What the campaign did.
     *
     * @param dir the campaign directory
     * @param closed whether validation closed for every run ({@code closure.json})
     * @param runs runs in the campaign
     * @param resumedRuns runs kept from an earlier campaign
     * @param pairs pairs measured
     * @param windows windows measured
     * @param redone finished runs that {@code --resume} found damaged and ran again, one line each
     *     naming the file and what is wrong with it
     */
    public record Result(Path dir, boolean closed, int runs, int resumedRuns, int pairs, long windows,
            List<String> redone) {}

    /** Kernel calls of the warm-up window before every measured window. */
    private static final int WARMUP_CALLS = 2;

    private final MeasureOptions options;
    private final ContextTable table;
    private final ProbeRunner runner;
    private final QemuPlugin plugin;
    private final Progress progress;

    /**
     * A campaign, not yet run.
     *
     * @param options what to measure and where to write it
     * @param table the context table ({@link ContextTable#load()})
     * @param plugin the Splice QEMU plugin ({@link QemuPlugin#locate()})
     * @param progress receives passes done out of all passes
     */
    public MeasureCampaign(MeasureOptions options, ContextTable table, QemuPlugin plugin, Progress progress) {
        this(options, table, plugin, new UserProbeRunner(plugin), progress);
    }

    /**
     * A campaign whose passes run through {@code runner}, not yet run.
     *
     * @param options what to measure and where to write it
     * @param table the context table ({@link ContextTable#load()})
     * @param plugin the Splice QEMU plugin ({@link QemuPlugin#locate()})
     * @param runner how the probes run (user mode, on a CPU model, or system mode)
     * @param progress receives passes done out of all passes
     */
    public MeasureCampaign(MeasureOptions options, ContextTable table, QemuPlugin plugin, ProbeRunner runner,
            Progress progress) {
        this.options = options;
        this.table = table;
        this.plugin = plugin;
        this.runner = runner;
        this.progress = progress;
    }

    /** The contexts a pattern list selects that can be measured (a baseline, and the runner runs them). */
    private static List<Context> targets(ContextTable table, String patterns, ProbeRunner runner) {
        List<Context> selected = table.select(patterns);
        List<Context> out = runner.measurable(
                selected.stream().filter(c -> c.baseline().isPresent() && runner.measures(c)).toList());
        if (out.isEmpty()) {
            throw new BadInputException("--contexts '" + patterns + "' selects no measurable context "
                    + "(root baselines and contexts " + runner.emulator() + " 7.2 cannot run are left out)");
        }
        return out;
    }

    /**
     * Runs every run that is not already finished and writes the campaign directory.
     *
     * @return what the campaign did (a campaign whose validation did not close still writes every file)
     * @throws BadInputException when the patterns select nothing measurable or a pass fails
     */
    public Result run() {
        Instant started = Instant.now();
        CampaignLayout dir = layout();
        List<Context> targets = targets(table, options.contexts(), runner);
        List<RunPlan> plans = new ArrayList<>();
        List<String> redone = new ArrayList<>();
        List<String> contexts = null;
        int resumed = 0;
        int total = options.runs() * 3;
        AtomicInteger done = new AtomicInteger();
        progress.update(0, total);
        WindowDesign design = design(dir, targets);
        Map<String, Double> blocks = countBlocks(targets, design);
        // Runs are generated and measured --jobs at a time, so that only that many probes are held: a
        // formal probe (31 rounds) has 130,000 windows, and twelve of them with their validation records
        // did not fit a 768 MB heap (./splice gives weigh 512 MB).
        int group = Math.max(1, options.jobs());
        for (int first = 1; first <= options.runs(); first += group) {
            List<RunPlan> todo = new ArrayList<>();
            for (int i = first; i < first + group && i <= options.runs(); i++) {
                RunPlan p = plan(dir, targets, design, i);
                contexts = contexts == null ? p.probe().contexts() : contexts;
                Resume state = options.resume() ? resumable(p, runner.mode(), qemuCpu()) : Resume.UNFINISHED;
                if (state.keep()) {
                    resumed++;
                    progress.update(done.addAndGet(3), total);
                } else {
                    todo.add(p);
                    state.damage().ifPresent(redone::add);
                    prepare(p);
                }
                plans.add(p.withoutProbe());
            }
            validateAll(todo, done, total);
            for (RunPlan p : todo) {
                FinishedRun.Pinning pinning;
                try (CpuPinning pin = CpuPinning.pinCurrentThread()) {
                    pinning = pin.record();
                    timedPasses(p, done, total);
                }
                writeRun(p, pinning);
            }
        }
        return writeCampaign(plans, contexts, targets, started, resumed, blocks, redone);
    }

    private RunPlan plan(CampaignLayout dir, List<Context> targets, WindowDesign design, int index) {
        String id = CampaignLayout.runName(index);
        long seed = options.runSeed(index);
        ProbeProgram.Probe probe = ProbeProgram.generate(table, targets,
                new ProbeOptions(seed, options.rounds() + BurnIn.ROUNDS, options.calls(), WARMUP_CALLS, design.slots()));
        return new RunPlan(id, seed, probe, dir.run(id), sha256(probe.elf()));
    }

    /**
     * The timing and plugin-off passes of a run. Which runs first is drawn per run (from the run's
     * seed), so that a drift of the host between the two passes does not always fall on the same side
     * of the plugin-off contrast.
     */
    private void timedPasses(RunPlan p, AtomicInteger done, int total) {
        boolean offFirst = offFirst(p.seed());
        if (offFirst) {
            offRun(p);
            progress.update(done.incrementAndGet(), total);
        }
        timeRun(p);
        progress.update(done.incrementAndGet(), total);
        if (!offFirst) {
            offRun(p);
            progress.update(done.incrementAndGet(), total);
        }
    }

    /**
     * Whether the plugin-off pass of a run precedes its timing pass: the top bit of a SplitMix64 step
     * of the run's seed (independent of the probe's own shuffle, which uses java.util.Random).
     */
    static boolean offFirst(long runSeed) {
        long z = runSeed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (z ^ (z >>> 31)) < 0;
    }

    /**
     * The slots per kernel call of every context (design.json). {@code --resume} keeps the campaign's
     * design, so that its finished runs have the same probes; a campaign written before design.json
     * existed had every kernel at {@link ProbeProgram#SLOTS} slots, and resumes with that.
     */
    private WindowDesign design(CampaignLayout dir, List<Context> targets) {
        if (options.resume() && Files.isRegularFile(dir.design())) {
            WindowDesign kept = WindowDesign.read(dir.design());
            if (kept.calls().equals(options.calls()) && (kept.targetNs() == 0
                    || targets.stream().allMatch(c -> kept.contexts().containsKey(c.key())))) {
                return kept;
            }
        }
        WindowDesign d;
        if (options.resume() && !Files.isRegularFile(dir.design()) && Files.isRegularFile(dir.manifest())) {
            d = WindowSizes.fixed(List.of(), options.calls());
        } else if (options.windowNs() == 0) {
            d = WindowSizes.fixed(List.of(), options.calls());
        } else {
            try {
                Files.createDirectories(dir.dir());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            d = WindowSizes.pilot(runner, table, targets, options.calls(), options.windowNs(), options.seed(),
                    dir.designProbe());
        }
        d.write(dir.design());
        return d;
    }

    /** Translation blocks per kernel call, from a small probe of the same kernels (blocks.json). */
    private Map<String, Double> countBlocks(List<Context> targets, WindowDesign design) {
        // counted by the campaign's runner: system-mode contexts on qemu-system-riscv64 in their own image
        ProbeProgram.Probe small = ProbeProgram.generate(table, targets,
                new ProbeOptions(options.seed(), 1, List.of(1), 2, design.slots()));
        Map<String, Double> blocks = countBlocksOf(small);
        Map<String, BlockCounts.Kernel> kernels = new LinkedHashMap<>();
        blocks.forEach((k, v) -> kernels.put(k,
                new BlockCounts.Kernel(v, v > 0 ? small.kernels().get(k).slots() / v : 0)));
        new BlockCounts(runner.emulator() + " -d exec,nochain with the plugin loaded (count mode); blocks starting in a kernel "
                + "function per kernel call; probe blocks-probe.elf, every kernel called 1 + 2 (warm-up) times per window",
                kernels).write(layout().blocks());
        return blocks;
    }

    private Map<String, Double> countBlocksOf(ProbeProgram.Probe small) {
        Path elf = layout().blocksProbe();
        AtomicFiles.writeExecutable(elf, small.elf());
        return runner.blocksPerCall(small, elf);
    }

    /** The {@code -cpu} model the runs use ({@code --cpu}, recorded in manifest.json and run.json); empty: QEMU's default. */
    private Optional<String> qemuCpu() {
        return runner instanceof UserProbeRunner user ? user.cpu() : Optional.empty();
    }

    private CampaignLayout layout() {
        return new CampaignLayout(options.out());
    }

    /** A run to measure; {@code probe} is null once the run is measured or kept (see {@link #withoutProbe()}). */
    private record RunPlan(String id, long seed, ProbeProgram.Probe probe, CampaignLayout.Run files, String sha256) {
        Path elf() {
            return files.probe();
        }

        /** The plan without its probe, which the campaign's files no longer need once the run is done. */
        RunPlan withoutProbe() {
            return new RunPlan(id, seed, null, files, sha256);
        }
    }

    /** What {@code --resume} does with a run: keep it, or run it (again, when it finished but is damaged). */
    private record Resume(boolean keep, Optional<String> damage) {
        static final Resume KEEP = new Resume(true, Optional.empty());
        static final Resume UNFINISHED = new Resume(false, Optional.empty());

        static Resume damaged(Path file, String why) {
            return new Resume(false, Optional.of(file + ": " + why + "; the run is measured again"));
        }
    }

    /**
     * A run is kept when its run.json names the same probe, mode and CPU model and every file it recorded a
     * checksum of still has that checksum (a truncated pairs.jsonl would otherwise be trusted).
     */
    private static Resume resumable(RunPlan p, String mode, Optional<String> cpu) {
        CampaignLayout.Run files = p.files();
        if (!Files.isRegularFile(files.finished())) {
            return Resume.UNFINISHED;
        }
        FinishedRun done;
        try {
            done = FinishedRun.read(files.finished());
        } catch (BadInputException e) {
            return new Resume(false, Optional.of(e.getMessage() + "; the run is measured again"));
        }
        if (!p.sha256().equals(done.probeSha256()) || !mode.equals(done.mode()) || !cpu.equals(done.qemuCpu())) {
            return Resume.UNFINISHED;
        }
        for (Path f : files.checksummed()) {
            String recorded = done.fileSha256().get(f.getFileName().toString());
            if (recorded == null) {
                return Resume.damaged(files.finished(), "records no checksum of " + f.getFileName()
                        + " (written before run.json recorded them), so the run cannot be verified");
            }
            if (!Files.isRegularFile(f)) {
                return Resume.damaged(f, "missing");
            }
            if (!recorded.equals(sha256(readAll(f)))) {
                return Resume.damaged(f, "its SHA-256 differs from the one run.json recorded when the run finished "
                        + "(truncated or changed since)");
            }
        }
        return Resume.KEEP;
    }

    private static Map<String, String> checksums(CampaignLayout.Run files) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Path f : files.checksummed()) {
            out.put(f.getFileName().toString(), sha256(readAll(f)));
        }
        return out;
    }

    private void prepare(RunPlan p) {
        try {
            Files.createDirectories(p.files().dir());
            Files.deleteIfExists(p.files().finished());
            AtomicFiles.writeExecutable(p.elf(), p.probe().elf());
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

    private PluginRecords pluginPass(RunPlan p, PluginRecords.Mode mode, String name, Path clock, Path records) {
        QemuRunner.Result r = runner.withPlugin(p.probe(), p.elf(), mode, clock, records);
        if (r.exitCode() != 0 || r.records().isEmpty()) {
            throw new BadInputException(p.elf() + ": the probe exited with status " + r.exitCode() + " in the "
                    + name + " pass");
        }
        return r.records().get();
    }

    private void validate(RunPlan p) {
        PluginRecords records = pluginPass(p, PluginRecords.Mode.VALIDATION, "validation", p.files().validationClock(),
                p.files().validationRecords());
        closure(p.id(), Closure.check(p.probe(), records, runner.harts(p.probe()))).write(p.files().closure());
    }

    private void timeRun(RunPlan p) {
        pluginPass(p, PluginRecords.Mode.TIMING, "timing", p.files().timingClock(), p.files().timingRecords());
    }

    private void offRun(RunPlan p) {
        Path out = p.files().offClock();
        int exit = runner.plain(p.probe(), p.elf(), out);
        if (exit != 0) {
            throw new BadInputException(p.elf() + ": the probe exited with status " + exit + " in the plugin-off pass");
        }
    }

    /**
     * Per-run pairs from the timing and plugin-off passes, the burn-in round's in files of their own;
     * run.json last, so a finished run is complete.
     */
    private void writeRun(RunPlan p, FinishedRun.Pinning pinning) {
        try {
            CampaignLayout.Run files = p.files();
            int windows = p.probe().windows().size();
            PluginRecords timing = PluginRecords.read(files.timingRecords());
            if (timing.timingWindows().size() != windows) {
                throw new BadInputException(files.timingRecords() + ": " + timing.timingWindows().size()
                        + " windows, the probe has " + windows);
            }
            GuestClock on = GuestClock.parse(Files.readAllBytes(files.timingClock()), windows,
                    files.timingClock().toString());
            GuestClock off = GuestClock.parse(Files.readAllBytes(files.offClock()), windows, files.offClock().toString());
            BurnIn.Split split = BurnIn.split(p.probe().pairs());
            List<PairRow> burnOn = new ArrayList<>();
            List<PairRow> burnOff = new ArrayList<>();
            List<PairRow> onRows = new ArrayList<>();
            List<PairRow> offRows = new ArrayList<>();
            rows(p, split.burnIn(), timing, on, off, burnOn, burnOff);
            rows(p, split.measured(), timing, on, off, onRows, offRows);
            AtomicFiles.write(files.burnIn(), PairRows.lines(burnOn));
            AtomicFiles.write(files.burnInOff(), PairRows.lines(burnOff));
            AtomicFiles.write(files.pairs(), PairRows.lines(onRows));
            AtomicFiles.write(files.pairsOff(), PairRows.lines(offRows));
            new FinishedRun(p.id(), p.seed(), p.sha256(), split.measured().size(), windows, on.ticksPerNs(),
                    off.ticksPerNs(), timing.footer(), Instant.now().toString(), checksums(files), runner.mode(),
                    BurnIn.ROUNDS, pinning, qemuCpu()).write(files.finished());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Pair rows of {@code pairs} (numbered and positioned among themselves) from both passes. */
    private static void rows(RunPlan p, List<ProbePair> pairs, PluginRecords timing, GuestClock on, GuestClock off,
            List<PairRow> onRows, List<PairRow> offRows) {
        for (ProbePair pair : pairs) {
            double position = pairs.size() == 1 ? 0 : (double) pair.index() / (pairs.size() - 1);
            PluginRecords.TimingWindow pw = timing.timingWindows().get(pair.probeWindow());
            PluginRecords.TimingWindow bw = timing.timingWindows().get(pair.baselineWindow());
            if (!pw.timerFailed() && !bw.timerFailed()) {
                onRows.add(row(p, pair, position, pw.elapsedNs(), bw.elapsedNs(), on,
                        (int) (pw.translations() + bw.translations())));
            }
            offRows.add(row(p, pair, position, Double.NaN, Double.NaN, off, null));
        }
    }

    private static double round(double ns) {
        return Math.round(ns * 1000) / 1000.0;
    }

    /** A pair row: the thread CPU times given, the guest times from {@code clock}. */
    private static PairRow row(RunPlan p, ProbePair pair, double position, double probeNs, double baselineNs,
            GuestClock clock, Integer translations) {
        return new PairRow(p.id(), pair.context(), pair.baseline(), null, pair.batch(),
                PairRow.Order.valueOf(pair.order()), pair.round(), position,
                new PairRow.Windows(pair.calls(), pair.probeWindow(), pair.baselineWindow()), probeNs, baselineNs,
                round(clock.windowNs(pair.probeWindow())), round(clock.windowNs(pair.baselineWindow())), translations);
    }

    private static RunClosure closure(String run, Closure.RunCheck check) {
        List<RunClosure.Failure> failures = check.pairs().stream().filter(c -> !c.ok()).limit(RunClosure.MAX_FAILURES)
                .map(c -> new RunClosure.Failure(c.pair(), c.context(), c.targetCount(), c.batch(), c.mismatch()))
                .toList();
        return new RunClosure(run, check.closed(), check.windowsExpected(), check.windowsSeen(), check.pairs().size(),
                check.pairs().stream().filter(Closure.PairCheck::ok).count(), check.footer(), failures);
    }

    private Result writeCampaign(List<RunPlan> plans, List<String> contexts, List<Context> targets, Instant started,
            int resumed, Map<String, Double> blocks, List<String> redone) {
        CampaignLayout dir = layout();
        // the runs' files are copied, not read into one string: a formal campaign's pairs are 100+ MB
        AtomicFiles.write(dir.pairs(), out -> plans.forEach(p -> copy(p.files().pairs(), out)));
        AtomicFiles.write(dir.pairsOff(), out -> plans.forEach(p -> copy(p.files().pairsOff(), out)));
        boolean closed = true;
        long nested = 0;
        long inactive = 0;
        long translationFailures = 0;
        long timerFailures = 0;
        long open = 0;
        List<RunClosure> runs = new ArrayList<>();
        List<Manifest.Run> manifestRuns = new ArrayList<>();
        long windows = 0;
        int pairCount = 0;
        for (RunPlan p : plans) {
            RunClosure c = RunClosure.read(p.files().closure());
            FinishedRun r = FinishedRun.read(p.files().finished());
            PluginRecords.Footer v = c.footer();
            PluginRecords.Footer t = r.timingFooter();
            nested += v.nestedStarts() + t.nestedStarts();
            inactive += v.inactiveStops() + t.inactiveStops();
            translationFailures += v.translationFailures() + t.translationFailures();
            timerFailures += v.timerFailures() + t.timerFailures();
            open += v.openWindows() + t.openWindows();
            closed &= c.closed() && t.nestedStarts() == 0 && t.inactiveStops() == 0 && t.translationFailures() == 0
                    && t.timerFailures() == 0 && t.openWindows() == 0;
            runs.add(c);
            manifestRuns.add(new Manifest.Run(p.id(), p.seed(), p.sha256(), r.finished(), r.guestTicksPerNsTiming()));
            windows += r.windows();
            pairCount += r.pairs();
        }
        new CampaignClosure(closed, nested, inactive, translationFailures, timerFailures, open, runs)
                .write(dir.closure());
        manifest(contexts, targets, started, manifestRuns, blocks).write(dir.manifest());
        return new Result(dir.dir(), closed, plans.size(), resumed, pairCount, windows, List.copyOf(redone));
    }

    private static void copy(Path file, java.io.OutputStream out) {
        try {
            Files.copy(file, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Manifest manifest(List<String> contexts, List<Context> targets, Instant started, List<Manifest.Run> runs,
            Map<String, Double> blocks) {
        Manifest.Host host = new Manifest.Host(readTrimmed(Path.of("/proc/sys/kernel/hostname")), cpuModel(),
                Runtime.getRuntime().availableProcessors(), readTrimmed(Path.of("/proc/sys/kernel/osrelease")),
                qemuVersion(runner.emulator()), System.getProperty("java.version"));
        Manifest.Hashes hashes = new Manifest.Hashes(sha256(readAll(plugin.library())), sha256(contextTableBytes()));
        Manifest.Options o = new Manifest.Options(options.profile(), options.contexts(), options.runs(),
                options.rounds(), options.seed(), options.jobs(), ProbeProgram.SLOTS,
                options.calls().stream().map(c -> c * ProbeProgram.SLOTS).toList(), WARMUP_CALLS);
        List<Manifest.Baseline> baselines = contexts.stream()
                .map(c -> new Manifest.Baseline(c, table.context(c).flatMap(Context::baseline).orElse("")))
                .toList();
        return new Manifest(host, hashes, o, contexts, targets.stream().map(Context::key).toList(), baselines,
                started.toString(), Instant.now().toString(), runs, blocks, runner.mode(), qemuCpu());
    }

    private static String cpuModel() {
        for (String line : readTrimmed(Path.of("/proc/cpuinfo")).split("\n")) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    private static String qemuVersion(String emulator) {
        try {
            Process p = new ProcessBuilder(emulator, "--version").redirectErrorStream(true).start();
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
}
