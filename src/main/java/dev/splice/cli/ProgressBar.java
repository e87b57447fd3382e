package dev.splice.cli;

import java.io.PrintStream;

/**
 * A one-line progress bar with rate and ETA on stderr, redrawn at most every 200 ms; nothing at all
 * when {@link Progress#shown()} says no (standard error is no terminal, or {@code --no-progress}).
 */
final class ProgressBar {
    private static final int WIDTH = 30;
    private final PrintStream out;
    private final String label;
    private final int total;
    private final long start = System.nanoTime();
    private long lastDraw;
    private boolean finished;

    ProgressBar(PrintStream out, String label, int total) {
        this.out = out;
        this.label = label;
        this.total = total;
        this.finished = !Progress.shown();
    }

    synchronized void update(int done) {
        long now = System.nanoTime();
        if (finished || (done < total && now - lastDraw < 200_000_000L)) {
            return;
        }
        lastDraw = now;
        double secs = (now - start) / 1e9;
        int filled = (int) ((long) WIDTH * done / Math.max(1, total));
        double eta = done > 0 ? secs * (total - done) / done : Double.NaN;
        out.printf("\r%s [%s%s] %d/%d  %.1f s  ETA %s", label, "#".repeat(filled), ".".repeat(WIDTH - filled), done,
                total, secs, Double.isFinite(eta) ? String.format("%.0f s", eta) : "?");
        if (done >= total) {
            out.println();
            finished = true;
        }
        out.flush();
    }
}
