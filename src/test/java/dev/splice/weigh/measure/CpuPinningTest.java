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

    /** The JVM's other threads (G1's workers among them) leave the probe's CPU while it is pinned. */
    @Test
    void theOtherThreadsOfTheJvmLeaveThePinnedCpuAndComeBack() throws Exception {
        java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicLong id = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                id.set(Long.parseLong(java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self"))
                        .getFileName().toString()));
                started.countDown();
                stop.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        other.start();
        started.await();
        java.nio.file.Path status = java.nio.file.Path.of("/proc/self/task/" + id.get() + "/status");
        String before = dev.splice.weigh.CpuAffinity.allowed(status).orElseThrow();
        List<Integer> cpus = CpuPinning.cpuList(before);
        try {
            try (CpuPinning pin = CpuPinning.pinCurrentThread()) {
                assertTrue(pin.record().pinned(), pin.record().toString());
                List<Integer> rest = cpus.subList(0, cpus.size() - 1);
                assertEquals(rest, CpuPinning.cpuList(dev.splice.weigh.CpuAffinity.allowed(status).orElseThrow()),
                        "another thread while pinned: " + pin.record());
                assertTrue(pin.record().detail().contains("the JVM's other threads on"), pin.record().detail());
            }
            assertEquals(before, dev.splice.weigh.CpuAffinity.allowed(status).orElseThrow(), "after the pinning is closed");
        } finally {
            stop.countDown(); // the thread's status exists only while it runs
            other.join();
        }
    }

    @Test
    void cpuListsAreReadAsTheKernelWritesThem() {
        assertEquals(List.of(0, 1), CpuPinning.cpuList("0-1"));
        assertEquals(List.of(0, 2, 3, 5), CpuPinning.cpuList("0,2-3,5"));
    }
}
