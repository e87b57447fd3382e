package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: the assembler and the listing writer are linear. Bounds on bytes allocated by this
 * thread (not on time: the suite's machine is shared), generous, and far below what the quadratic
 * versions allocated (20,000 numeric labels: 4.6 GB; the writer: about 270 KB per region).
 */
class LinearListingTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocated() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** 1,000,001 lines: 100,000 nops, then 300,000 numeric labels each with a backward and a forward reference. */
    static String millionLines(int labels) {
        StringBuilder text = new StringBuilder(40_000_000);
        for (int lines = 3 * labels; lines < 1_000_000; lines++) {
            text.append("    nop\n");
        }
        for (int i = 0; i < labels; i++) {
            text.append("1:  addi a0, a0, 1\n    bnez a0, 1b\n    beqz a0, 1f\n");
        }
        return text.append("1:  ret\n").toString();
    }

    @Test
    void aMillionLinesWith300000NumericLabelsAssembleLinearly() {
        int labels = 300_000;
        String text = millionLines(labels);
        long before = allocated();
        long cpu = THREADS.getCurrentThreadCpuTime();
        byte[] bytes = Assembler.assemble(text, "many.s", 0x10000L, Map.of()).bytes();
        long used = allocated() - before;
        double seconds = (THREADS.getCurrentThreadCpuTime() - cpu) / 1e9;
        System.out.printf("1,000,001 lines, 300,001 numeric labels: %.2f s CPU, %d MB allocated%n", seconds, used >> 20);
        assertEquals(12L * labels + 4L * (1_000_000 - 3 * labels) + 4, bytes.length);
        // Allocated in all (garbage included), not live: 1.4 GB measured; 20,000 labels took 4.6 GB when quadratic.
        assertTrue(used < 3L << 30, "allocated " + (used >> 20) + " MB for 1,000,001 lines");
    }

    /**
     * The same file through {@code splice asm} in a JVM limited to a 1 GB heap (the bound on
     * memory; its 5 s bound is a speed target, measured by {@code bench/asm.sh} against llvm-mc-22):
     * it assembles, and the output is the listing's bytes.
     */
    @Test
    void aMillionLinesAssembleInAOneGigabyteHeap(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path listing = dir.resolve("many.s");
        java.nio.file.Files.writeString(listing, ".target rv64gc\n.origin 0x10000\n" + millionLines(300_000));
        java.nio.file.Path out = dir.resolve("many.bin");
        Process p = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), "dev.splice.cli.Main",
                "asm", listing.toString(), "-o", out.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile()).start();
        assertTrue(p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS), "splice asm finished");
        assertEquals(0, p.exitValue(), java.nio.file.Files.readString(dir.resolve("log")));
        assertEquals(12L * 300_000 + 4L * 100_000 + 4, java.nio.file.Files.size(out));
    }

    @Test
    void theListingWriterAllocatesLittlePerRegion() {
        List<Region> regions = new ArrayList<>();
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            regions.add(Region.raw(0x10000L + 16L * i, new byte[] {0x13, 0, 0, 0}));
        }
        ListingWriter writer = new ListingWriter();
        writer.toText(regions.subList(0, 10)); // warm-up
        long before = allocated();
        String text = writer.toText(regions);
        long perRegion = (allocated() - before) / n;
        System.out.printf("listing writer: %d bytes allocated per one-instruction region%n", perRegion);
        assertTrue(text.length() > n * 10);
        assertTrue(perRegion < 16_384, perRegion + " bytes per region (issue 15: about 270 KB before)");
    }
}
