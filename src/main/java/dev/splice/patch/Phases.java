package dev.splice.patch;

/**
 * Optional phase timing for the write-back (speed work, bench/patch.sh): with the system property
 * {@code splice.phases} set (e.g. {@code SPLICE_JAVA_OPTS=-Dsplice.phases=true ./splice patch ...}),
 * each phase prints its wall time in milliseconds to stderr. Off by default: one static check.
 */
final class Phases {
    private static final boolean ON = Boolean.getBoolean("splice.phases");
    private static long last = System.nanoTime();

    private Phases() {}

    static void mark(String phase) {
        if (ON) {
            long now = System.nanoTime();
            System.err.printf("splice: phase %-22s %7.1f ms%n", phase, (now - last) / 1e6);
            last = now;
        }
    }
}
