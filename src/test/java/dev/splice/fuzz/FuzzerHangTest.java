package dev.splice.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fuzzer's hang check judges a worker by its own CPU time, so that a loaded machine does not
 * turn slow inputs into hangs (session 10's five flagged inputs replayed in under 0.4 s each), and
 * still catches a worker that blocks without using CPU, by a much longer wall-time bound.
 */
class FuzzerHangTest {
    private static final long SECOND = 1_000_000_000L;

    private static Fuzzer.Report one(FuzzTarget.Body body, long hangCpuNanos, long hangWallNanos) {
        FuzzTarget t = new FuzzTarget("t", List.of(new byte[] {1}), (seed, r) -> seed, body, 1);
        return new Fuzzer(null, hangCpuNanos, hangWallNanos).run(List.of(t), 1, 60_000, 1, null);
    }

    @Test
    void aWorkerThatWaitsLongerThanTheCpuBoundIsNoHang() {
        Fuzzer.Report r = one(input -> Thread.sleep(2_500), SECOND, 60 * SECOND);
        assertEquals(1, r.counts().get(0).inputs());
        assertTrue(r.findings().isEmpty(), r.findings().toString());
    }

    @Test
    void aWorkerThatSpinsIsAHangByItsCpuTime() {
        Fuzzer.Report r = one(input -> {
            long end = System.nanoTime() + 30 * SECOND;
            long x = 0;
            while (System.nanoTime() < end) {
                x++;
            }
            if (x == 42) {
                throw new IllegalStateException("unreachable in practice");
            }
        }, SECOND, 60 * SECOND);
        assertEquals(1, r.findings().size(), r.findings().toString());
        assertEquals("hang", r.findings().get(0).kind());
        assertTrue(r.findings().get(0).where().contains("CPU"), r.findings().get(0).where());
    }

    @Test
    void aBlockedWorkerIsAHangByTheWallBound() {
        Fuzzer.Report r = one(input -> Thread.sleep(60_000), 30 * SECOND, 2 * SECOND);
        assertEquals(1, r.findings().size(), r.findings().toString());
        assertTrue(r.findings().get(0).where().startsWith("blocked"), r.findings().get(0).where());
    }
}
