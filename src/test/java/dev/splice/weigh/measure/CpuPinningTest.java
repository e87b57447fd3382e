package dev.splice.weigh.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.campaign.FinishedRun;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pinning the calling thread pins the processes it starts: the oracle is the child's own
 * {@code /proc/self/status}, as the kernel reports it.
 */
class CpuPinningTest {
    private static String childCpus() throws Exception {
        Process p = new ProcessBuilder("grep", "Cpus_allowed_list", "/proc/self/status").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor());
        return out.substring(out.indexOf(':') + 1).strip();
    }

    @Test
    void aChildRunsOnThePinnedCpuAndOnAllOfThemAfterwards() throws Exception {
        String before = childCpus();
        List<Integer> cpus = CpuPinning.cpuList(before);
        try (CpuPinning pin = CpuPinning.pinCurrentThread()) {
            FinishedRun.Pinning r = pin.record();
            assertTrue(r.pinned(), r.toString());
            assertEquals(String.valueOf(cpus.get(cpus.size() - 1)), r.cpus(), r.toString());
            assertEquals(r.cpus(), childCpus(), "the child's CPU set while pinned");
        }
        assertEquals(before, childCpus(), "the child's CPU set after the pinning is closed");
    }

    @Test
    void cpuListsAreReadAsTheKernelWritesThem() {
        assertEquals(List.of(0, 1), CpuPinning.cpuList("0-1"));
        assertEquals(List.of(0, 2, 3, 5), CpuPinning.cpuList("0,2-3,5"));
    }
}
