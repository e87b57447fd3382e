package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 15: numeric local labels resolve by binary search, so 300,000 of them assemble in seconds, not minutes. */
class LocalLabelSpeedTest {
    @Test
    void threeHundredThousandNumericLabelsAssembleQuickly() {
        int n = 300_000;
        StringBuilder text = new StringBuilder(n * 40);
        for (int i = 0; i < n; i++) {
            text.append("1:  addi a0, a0, 1\n    bnez a0, 1b\n    beqz a0, 1f\n");
        }
        text.append("1:  ret\n");
        // CPU time of this thread: the machine running the suite is often shared, which inflates wall-clock time.
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        byte[] bytes = Assembler.assemble(text.toString(), "many.s", 0x10000L, Map.of()).bytes();
        double seconds = (threads.getCurrentThreadCpuTime() - start) / 1e9;
        assertEquals(12L * n + 4, bytes.length);
        // The last bnez goes back 4 bytes to its own label; the last beqz forward 4 bytes to the ret.
        int at = 12 * (n - 1);
        assertEquals(0xfe051ee3, word(bytes, at + 4), "bnez a0, 1b");
        assertEquals(0x00050263, word(bytes, at + 8), "beqz a0, 1f");
        assertTrue(seconds < 5, "300,000 numeric labels took " + seconds + " s of CPU (issue 15: under 5 s)");
    }

    private static int word(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }
}
