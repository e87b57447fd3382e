package dev.splice.weigh.measure;

import dev.splice.weigh.CpuAffinity;
import dev.splice.weigh.campaign.FinishedRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Confines the calling thread, and so every process it starts, to one CPU for a while: Linux gives a
 * child the affinity mask of the thread that forks it, so pinning the thread that starts the timed
 * QEMU passes pins QEMU without a wrapper in its command line. Done with {@code taskset -p -c CPU
 * TID} on the thread's own id, and undone on {@link #close()}. The CPU is the last one the thread
 * may use (CPU 0 usually takes more of the host's interrupts). Where pinning is not possible (no
 * {@code taskset}, not Linux, a cpuset that refuses it) nothing changes and {@link #record()} says why.
 */
final class CpuPinning implements AutoCloseable {
    private static final Path SELF = Path.of("/proc/thread-self");

    private final String tid;
    private final String before;
    private final FinishedRun.Pinning record;

    private CpuPinning(String tid, String before, FinishedRun.Pinning record) {
        this.tid = tid;
        this.before = before;
        this.record = record;
    }

    /**
     * Pins the calling thread to one CPU, or records why it cannot.
     *
     * @return the pinning; close it to restore the thread's CPU set
     */
    static CpuPinning pinCurrentThread() {
        Optional<String> allowed = allowedCpus();
        String tid;
        try {
            tid = Files.readSymbolicLink(SELF).getFileName().toString();
        } catch (IOException | UnsupportedOperationException e) {
            return new CpuPinning(null, null, new FinishedRun.Pinning(false, allowed.orElse("unknown"),
                    "not pinned: no " + SELF + " (" + e.getMessage() + ")"));
        }
        if (allowed.isEmpty()) {
            return new CpuPinning(null, null, new FinishedRun.Pinning(false, "unknown",
                    "not pinned: " + SELF + "/status has no Cpus_allowed_list"));
        }
        List<Integer> cpus = cpuList(allowed.get());
        if (cpus.size() == 1) {
            return new CpuPinning(null, null, new FinishedRun.Pinning(true, allowed.get(),
                    "the process was already confined to one CPU"));
        }
        String cpu = String.valueOf(cpus.get(cpus.size() - 1));
        String failure = taskset(cpu, tid);
        Optional<String> now = allowedCpus();
        if (failure != null || !now.equals(Optional.of(cpu))) {
            return new CpuPinning(null, null, new FinishedRun.Pinning(false, now.orElse(allowed.get()),
                    "not pinned: taskset -p -c " + cpu + " " + tid + (failure != null ? ": " + failure
                            : " left the thread on CPUs " + now.orElse("unknown"))));
        }
        return new CpuPinning(tid, allowed.get(), new FinishedRun.Pinning(true, cpu,
                "taskset -p -c " + cpu + " on the thread that starts the timing and plugin-off passes (of CPUs "
                        + allowed.get() + ")"));
    }

    /** @return what run.json records */
    FinishedRun.Pinning record() {
        return record;
    }

    /** Restores the thread's CPU set as it was before (nothing when it was not changed). */
    @Override
    public void close() {
        if (tid != null) {
            taskset(before, tid);
        }
    }

    /** The calling thread's CPU set as the kernel lists it ({@code 0-1}, {@code 0,2-3}). */
    static Optional<String> allowedCpus() {
        return CpuAffinity.allowed(SELF.resolve("status"));
    }

    /** The CPUs of a kernel CPU list, ascending. */
    static List<Integer> cpuList(String list) {
        return CpuAffinity.cpuList(list);
    }

    /** Runs {@code taskset -p -c cpus tid}; null on success, else what went wrong. */
    private static String taskset(String cpus, String tid) {
        return CpuAffinity.taskset(cpus, tid).orElse(null);
    }
}
