package dev.splice.patch;

/**
 * Optional phase timing for the write-back (speed work, bench/patch.sh): with the system property
 * {@code splice.phases} set (e.g. {@code SPLICE_JAVA_OPTS=-Dsplice.phases=true ./splice patch ...}),
 * each phase prints its wall time and the CPU time of the thread that marks it (the main one;
 * background work is not in it) in milliseconds to stderr. Off by default: one static check.
 */
final class Phases {
    private static final boolean ON = Boolean.getBoolean("splice.phases");
    private static long last = System.nanoTime();
    /** The calling thread's CPU time at the last mark: on a shared machine wall time says little. */
    private static long lastCpu = ON ? cpu() : 0;

    private Phases() {}

    static void mark(String phase) {
        if (ON) {
            long now = System.nanoTime();
            long cpu = cpu();
            System.err.printf("splice: phase %-22s %7.1f ms %7.1f ms cpu%n", phase, (now - last) / 1e6, (cpu - lastCpu) / 1e6);
            last = now;
            lastCpu = cpu;
        }
    }

    private static long cpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
