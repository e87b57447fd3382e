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
 * may use (CPU 0 usually takes more of the host's interrupts). The JVM's other threads are kept off
 * it meanwhile ({@code taskset -a -p} on the process first, then the calling thread alone): G1's
 * workers and concurrent marking ran 1.4 s of CPU in 15 s of a formal campaign while the probes were
 * being timed, and the scheduler may put them on the probe's CPU, where every such slice is an
 * interrupt of a timed window. Where pinning is not possible (no {@code taskset}, not Linux, a cpuset
 * that refuses it) nothing changes and {@link #record()} says why.
 */
final class CpuPinning implements AutoCloseable {
    private static final Path SELF = Path.of("/proc/thread-self");
    private static final String PID = String.valueOf(ProcessHandle.current().pid());

    private final String tid;
    private final String before;
    /** Whether the JVM's other threads were moved off the CPU (then {@link #close()} gives every thread {@link #before} again). */
    private final boolean othersMoved;
    private final FinishedRun.Pinning record;

    private CpuPinning(String tid, String before, boolean othersMoved, FinishedRun.Pinning record) {
        this.tid = tid;
        this.before = before;
        this.othersMoved = othersMoved;
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
            return new CpuPinning(null, null, false, new FinishedRun.Pinning(false, allowed.orElse("unknown"),
                    "not pinned: no " + SELF + " (" + e.getMessage() + ")"));
        }
        if (allowed.isEmpty()) {
            return new CpuPinning(null, null, false, new FinishedRun.Pinning(false, "unknown",
                    "not pinned: " + SELF + "/status has no Cpus_allowed_list"));
        }
        List<Integer> cpus = cpuList(allowed.get());
        if (cpus.size() == 1) {
            return new CpuPinning(null, null, false, new FinishedRun.Pinning(true, allowed.get(),
                    "the process was already confined to one CPU"));
        }
        String cpu = String.valueOf(cpus.get(cpus.size() - 1));
        String others = String.join(",", cpus.subList(0, cpus.size() - 1).stream().map(String::valueOf).toList());
        boolean othersMoved = CpuAffinity.tasksetAllThreads(others, PID).isEmpty();
        String failure = taskset(cpu, tid);
        Optional<String> now = allowedCpus();
        if (failure != null || !now.equals(Optional.of(cpu))) {
            if (othersMoved) {
                CpuAffinity.tasksetAllThreads(allowed.get(), PID);
            }
            return new CpuPinning(null, null, false, new FinishedRun.Pinning(false, now.orElse(allowed.get()),
                    "not pinned: taskset -p -c " + cpu + " " + tid + (failure != null ? ": " + failure
                            : " left the thread on CPUs " + now.orElse("unknown"))));
        }
        return new CpuPinning(tid, allowed.get(), othersMoved, new FinishedRun.Pinning(true, cpu,
                "taskset -p -c " + cpu + " on the thread that starts the timing and plugin-off passes (of CPUs "
                        + allowed.get() + ")" + (othersMoved ? "; the JVM's other threads on " + others
                        : "; the JVM's other threads not moved")));
    }

    /** @return what run.json records */
    FinishedRun.Pinning record() {
        return record;
    }

    /** Restores the CPU sets as they were before: every thread's when the others were moved, else the pinned one's (nothing when none changed). */
    @Override
    public void close() {
        if (tid != null && othersMoved) {
            CpuAffinity.tasksetAllThreads(before, PID);
        } else if (tid != null) {
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
