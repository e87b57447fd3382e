package dev.splice.weigh.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.CpuAffinity;
import dev.splice.weigh.campaign.FinishedRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
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
        CountDownLatch stop = new CountDownLatch(1);
        AtomicLong id = new AtomicLong();
        CountDownLatch started = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                id.set(Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self"))
                        .getFileName().toString()));
                started.countDown();
                stop.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        other.start();
        started.await();
        Path status = Path.of("/proc/self/task/" + id.get() + "/status");
        String before = CpuAffinity.allowed(status).orElseThrow();
        List<Integer> cpus = CpuPinning.cpuList(before);
        try {
            try (CpuPinning pin = CpuPinning.pinCurrentThread()) {
                assertTrue(pin.record().pinned(), pin.record().toString());
                List<Integer> rest = cpus.subList(0, cpus.size() - 1);
                assertEquals(rest, CpuPinning.cpuList(CpuAffinity.allowed(status).orElseThrow()),
                        "another thread while pinned: " + pin.record());
                assertTrue(pin.record().detail().contains("the JVM's other threads on"), pin.record().detail());
            }
            assertEquals(before, CpuAffinity.allowed(status).orElseThrow(), "after the pinning is closed");
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
