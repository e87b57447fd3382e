package dev.splice.weigh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Linux CPU affinity of threads, as the campaign's pinning ({@code measure.CpuPinning}) and the
 * two-hart system runs ({@code system.HartPinning}) set and read it: through {@code taskset} on a
 * thread id, and {@code Cpus_allowed_list} in {@code /proc}.
 */
public final class CpuAffinity {
    /** The CPUs the kernel has online, as a CPU list ({@code 0-1}). */
    public static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");

    private CpuAffinity() {}

    /**
     * The CPUs of a kernel CPU list, ascending.
     *
     * @param list a list as the kernel writes it ({@code 0-1}, {@code 0,2-3})
     * @return the CPUs
     */
    public static List<Integer> cpuList(String list) {
        List<Integer> out = new ArrayList<>();
        for (String part : list.split(",")) {
            String[] range = part.strip().split("-");
            int lo = Integer.parseInt(range[0]);
            int hi = range.length > 1 ? Integer.parseInt(range[1]) : lo;
            for (int c = lo; c <= hi; c++) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * The CPU set a thread may run on.
     *
     * @param status the thread's status file ({@code /proc/thread-self/status}, {@code /proc/PID/task/TID/status})
     * @return its {@code Cpus_allowed_list}, or empty when the file cannot be read or has none
     */
    public static Optional<String> allowed(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return Optional.of(line.substring(line.indexOf(':') + 1).strip());
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * Confines a thread to a CPU set with {@code taskset -p -c cpus tid}.
     *
     * @param cpus a CPU list
     * @param tid the thread's id
     * @return empty on success, else what went wrong
     */
    public static Optional<String> taskset(String cpus, String tid) {
        return run("taskset", "-p", "-c", cpus, tid);
    }

    /**
     * Confines every thread of a process to a CPU set with {@code taskset -a -p -c cpus pid}.
     *
     * @param cpus a CPU list
     * @param pid the process id
     * @return empty on success, else what went wrong
     */
    public static Optional<String> tasksetAllThreads(String cpus, String pid) {
        return run("taskset", "-a", "-p", "-c", cpus, pid);
    }

    private static Optional<String> run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            int exit = p.waitFor();
            return exit == 0 ? Optional.empty() : Optional.of("exit status " + exit + ": " + out);
        } catch (IOException e) {
            return Optional.of("cannot run taskset (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }
}
