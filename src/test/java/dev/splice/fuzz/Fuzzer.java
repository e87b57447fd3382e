package dev.splice.fuzz;

import dev.splice.base.BadInputException;
import dev.splice.cfg.EdgeProfileException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The in-process fuzzer (issue 15): derives inputs from each target's seeds, runs each through the
 * target on a worker thread, and reports a finding for an exception that is not one of the
 * project's refusals, for CPU time over 1 s per MB (at least 1 s), for allocation beyond the
 * target's multiple of the input size (plus 64 MiB), and for a hang (30 s of the worker's CPU time,
 * or 10 minutes of wall time without a result: the worker is abandoned). One finding per target, kind and place; the first input of each is saved.
 *
 * <p>{@code bench/fuzz.sh SECONDS} runs {@link #main}; {@code FuzzPassTest} runs a short fixed-seed pass.
 */
public final class Fuzzer {
    private static final long FIXED_ALLOWANCE = 64L << 20;
    /** The worker's CPU time after which an input is a hang. */
    private static final long HANG_CPU_NANOS = 30_000_000_000L;
    /** Wall time after which a worker that uses no CPU (blocked) is a hang. */
    private static final long HANG_WALL_NANOS = 600_000_000_000L;
    private final long hangCpuNanos;
    private final long hangWallNanos;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** One distinct finding. */
    public record Finding(String target, String kind, String where, String detail, int inputLength, Path saved) {
        @Override
        public String toString() {
            return target + ": " + kind + " at " + where + " (" + inputLength + "-byte input"
                    + (saved == null ? "" : ", saved as " + saved) + "): " + detail;
        }
    }

    /** What one target went through. */
    public record Counts(String target, long inputs, long refused, long accepted, int findings) {}

    /** The outcome of a run. */
    public record Report(List<Counts> counts, List<Finding> findings) {}

    private final Path findingsDir;
    private Thread workerThread;
    private ExecutorService worker = newWorker();
    private final Map<String, Finding> findings = new LinkedHashMap<>();

    /**
     * A fuzzer that saves the first input of each finding.
     *
     * @param findingsDir where (created), or null to save nothing
     */
    public Fuzzer(Path findingsDir) {
        this(findingsDir, HANG_CPU_NANOS, HANG_WALL_NANOS);
    }

    /** A fuzzer with its own hang limits (the tests of the hang check). */
    Fuzzer(Path findingsDir, long hangCpuNanos, long hangWallNanos) {
        this.findingsDir = findingsDir;
        this.hangCpuNanos = hangCpuNanos;
        this.hangWallNanos = hangWallNanos;
    }

    /** Whether a throwable is one of the project's refusals (the only acceptable outcome besides success). */
    static boolean acceptable(Throwable t) {
        return t instanceof BadInputException || t instanceof EdgeProfileException;
    }

    /**
     * Runs every target for its share of the time, or until it had {@code maxInputs} inputs (time a
     * target leaves unused goes to the next ones).
     *
     * @param targets the targets
     * @param seed the random seed (the same seed and limits give the same inputs)
     * @param millisPerTarget time per target
     * @param maxInputs inputs per target at most
     * @param progress where a line per target goes, or null
     * @return counts and findings
     */
    public Report run(List<FuzzTarget> targets, long seed, long millisPerTarget, long maxInputs, PrintWriter progress) {
        List<Counts> counts = new ArrayList<>();
        long end = System.currentTimeMillis() + millisPerTarget * targets.size();
        for (int i = 0; i < targets.size(); i++) {
            FuzzTarget t = targets.get(i);
            // Time a target leaves unused (it reached maxInputs) goes to the targets after it.
            long share = Math.max(0, (end - System.currentTimeMillis()) / (targets.size() - i));
            counts.add(progress(run(t, new Random(seed ^ t.name().hashCode()), share, maxInputs), progress));
        }
        worker.shutdownNow();
        return new Report(counts, List.copyOf(findings.values()));
    }

    /**
     * Runs each target for exactly its number of inputs, whatever the machine's speed: the same
     * seed and counts give the same inputs, so a pass reaches the same depth everywhere.
     *
     * @param targets the targets
     * @param seed the random seed
     * @param inputs inputs per target, by target name (every target must have one)
     * @param progress where a line per target goes, or null
     * @return counts and findings
     */
    public Report runCounted(List<FuzzTarget> targets, long seed, Map<String, Long> inputs, PrintWriter progress) {
        List<Counts> counts = new ArrayList<>();
        for (FuzzTarget t : targets) {
            long n = java.util.Objects.requireNonNull(inputs.get(t.name()), t.name());
            counts.add(progress(run(t, new Random(seed ^ t.name().hashCode()), Long.MAX_VALUE / 2_000_000, n), progress));
        }
        worker.shutdownNow();
        return new Report(counts, List.copyOf(findings.values()));
    }

    private static Counts progress(Counts c, PrintWriter progress) {
        if (progress != null) {
            progress.printf("%-18s %,12d inputs %,12d refused %,12d accepted %4d findings%n",
                    c.target(), c.inputs(), c.refused(), c.accepted(), c.findings());
            progress.flush();
        }
        return c;
    }

    private Counts run(FuzzTarget t, Random r, long millis, long maxInputs) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long inputs = 0;
        long refused = 0;
        int before = findings.size();
        byte[] previous = null;
        while (inputs < maxInputs && System.nanoTime() < deadline) {
            byte[] seed = previous != null && r.nextInt(4) == 0 ? previous
                    : t.seeds().get(r.nextInt(t.seeds().size()));
            byte[] input = t.mutator().mutate(seed, r);
            inputs++;
            Outcome o = runOne(t, input);
            if (o.refusal) {
                refused++;
                previous = null;
            } else {
                previous = input.length <= 4 * seed.length + 4096 ? input : null;
            }
        }
        long findingsOfTarget = findings.size() - before;
        return new Counts(t.name(), inputs, refused, inputs - refused, (int) findingsOfTarget);
    }

    private record Outcome(boolean refusal, Throwable failure, long cpuNanos, long allocated) {}

    private Outcome runOne(FuzzTarget t, byte[] input) {
        Future<Outcome> f = worker.submit(() -> {
            long id = Thread.currentThread().getId();
            long allocated = THREADS.getThreadAllocatedBytes(id);
            long cpu = THREADS.getThreadCpuTime(id);
            Throwable failure = null;
            try {
                t.body().run(input);
            } catch (Throwable e) {
                failure = e;
            }
            return new Outcome(failure != null && acceptable(failure), failure,
                    THREADS.getThreadCpuTime(id) - cpu, THREADS.getThreadAllocatedBytes(id) - allocated);
        });
        Outcome o;
        long workerId = workerThread.getId();
        long cpuAtStart = THREADS.getThreadCpuTime(workerId);
        long wallAtStart = System.nanoTime();
        while (true) {
            try {
                o = f.get(1, TimeUnit.SECONDS);
                break;
            } catch (TimeoutException e) {
                // A hang is judged by the worker's own CPU time, so that a loaded machine (other jobs, a
                // CI run) does not make a slow input look like one; a worker blocked without using CPU
                // (a read that never returns) is caught by the much longer wall-time bound.
                long cpu = THREADS.getThreadCpuTime(workerId) - cpuAtStart;
                long wall = System.nanoTime() - wallAtStart;
                if (cpu > hangCpuNanos || wall > hangWallNanos) {
                    abandonWorker();
                    record(t, "hang", cpu > hangCpuNanos ? "over " + hangCpuNanos / 1_000_000_000L + " s of CPU"
                            : "blocked over " + hangWallNanos / 1_000_000_000L + " s", "no result", input);
                    return new Outcome(true, null, 0, 0);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        if (o.failure != null && !o.refusal) {
            record(t, "crash " + o.failure.getClass().getSimpleName(), where(o.failure), stack(o.failure), input);
        }
        long cpuLimit = Math.max(1_000_000_000L, input.length * 1000L);
        if (o.cpuNanos > cpuLimit) {
            record(t, "slow", "CPU " + o.cpuNanos / 1_000_000 + " ms", "limit " + cpuLimit / 1_000_000 + " ms", input);
        }
        long allocationLimit = FIXED_ALLOWANCE + t.allocationPerByte() * input.length;
        if (o.allocated > allocationLimit) {
            record(t, "allocation", o.allocated / (1 << 20) + " MiB", "limit " + allocationLimit / (1 << 20) + " MiB", input);
        }
        return o;
    }

    /** A hung worker is stopped (Thread.stop still works on Java 17: nothing else ends a loop that never checks). */
    @SuppressWarnings({"deprecation", "removal"})
    private void abandonWorker() {
        worker.shutdownNow();
        workerThread.stop();
        worker = newWorker();
    }

    private ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread th = new Thread(r, "fuzz-worker");
            th.setDaemon(true);
            workerThread = th;
            return th;
        });
    }

    /** The first frame in Splice's own code: where the finding is. */
    private static String where(Throwable t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("dev.splice.") && !e.getClassName().startsWith("dev.splice.fuzz.")) {
                return e.getClassName().substring("dev.splice.".length()) + "." + e.getMethodName() + ":" + e.getLineNumber();
            }
        }
        return t.getStackTrace().length > 0 ? t.getStackTrace()[0].toString() : "?";
    }

    private static String stack(Throwable t) {
        StringWriter s = new StringWriter();
        t.printStackTrace(new PrintWriter(s));
        String text = s.toString();
        return text.length() > 4000 ? text.substring(0, 4000) : text;
    }

    private synchronized void record(FuzzTarget t, String kind, String where, String detail, byte[] input) {
        String key = t.name() + " " + kind + " " + where.replaceAll("[0-9]+ (ms|MiB)", "");
        if (findings.containsKey(key)) {
            return;
        }
        Path saved = null;
        if (findingsDir != null) {
            try {
                Files.createDirectories(findingsDir);
                saved = findingsDir.resolve(t.name() + "-" + findings.size() + ".bin");
                Files.write(saved, input);
                Files.writeString(findingsDir.resolve(t.name() + "-" + findings.size() + ".txt"),
                        t.name() + ": " + kind + " at " + where + "\n" + detail + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        findings.put(key, new Finding(t.name(), kind, where, detail.lines().findFirst().orElse(""), input.length, saved));
    }

    /**
     * {@code bench/fuzz.sh SECONDS [SEED] [TARGET,...] [MAX_INPUTS]}: runs every (or the named)
     * target for an equal share of SECONDS, prints per-target counts and the findings, exits 1 on
     * any finding; {@code --list} alone prints the target names.
     *
     * @param args seconds, then optionally the seed, a comma-separated list of targets and the inputs per target at most
     * @throws IOException if the seeds cannot be built
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 1 && args[0].equals("--list")) {
            // bench/fuzz.sh shares the targets among its jobs by these names.
            Targets.all().forEach(t -> System.out.println(t.name()));
            return;
        }
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 15;
        List<FuzzTarget> targets = Targets.all();
        if (args.length > 2 && !args[2].equals("all")) {
            List<String> names = List.of(args[2].split(","));
            targets = targets.stream().filter(t -> names.contains(t.name())).toList();
        }
        long maxInputs = args.length > 3 ? Long.parseLong(args[3]) : Long.MAX_VALUE;
        PrintWriter out = new PrintWriter(System.out, true);
        out.printf("fuzzing %d targets for %d s in all, seed %d%n", targets.size(), seconds, seed);
        Report report = new Fuzzer(Path.of("target/fuzz-findings")).run(targets, seed,
                seconds * 1000 / Math.max(1, targets.size()), maxInputs, out);
        long total = report.counts().stream().mapToLong(Counts::inputs).sum();
        out.printf("%,d inputs, %d findings%n", total, report.findings().size());
        report.findings().forEach(f -> out.println("FINDING " + f));
        out.flush();
        System.exit(report.findings().isEmpty() ? 0 : 1);
    }
}
