package dev.splice.weigh.measure;

import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.campaign.PluginRecords.EncodingCount;
import dev.splice.weigh.campaign.PluginRecords.ValidationWindow;
import dev.splice.weigh.probe.ProbePair;
import dev.splice.weigh.probe.ProbeProgram;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The validation pass's proof (issue 4 sections 3 and 4): in every pair the target encodings ran
 * exactly {@code batch} more times in the probe window than in the baseline window, and probe minus
 * baseline equals, for every raw encoding, calls x (probe kernel - baseline kernel) as generated.
 */
final class Closure {
    /** The check of one pair. */
    record PairCheck(int pair, String context, long targetCount, long batch, boolean closed, String mismatch) {
        boolean ok() {
            return closed && targetCount == batch;
        }
    }

    /** The check of one run's validation records. */
    record RunCheck(int windowsExpected, int windowsSeen, List<PairCheck> pairs, PluginRecords.Footer footer, int harts) {
        boolean closed() {
            return windowsExpected == windowsSeen && footer.cleanOn(harts) && pairs.stream().allMatch(PairCheck::ok);
        }
    }

    private Closure() {}

    static RunCheck check(ProbeProgram.Probe probe, PluginRecords records) {
        return check(probe, records, 1);
    }

    /** The check of a probe that ran on {@code harts} vCPUs (the others outside the plugin's range). */
    static RunCheck check(ProbeProgram.Probe probe, PluginRecords records, int harts) {
        List<ValidationWindow> windows = records.validationWindows();
        List<PairCheck> checks = new ArrayList<>();
        if (windows.size() == probe.windows().size()) {
            for (ProbePair p : probe.pairs()) {
                checks.add(checkPair(probe, p, windows.get(p.probeWindow()), windows.get(p.baselineWindow())));
            }
        }
        return new RunCheck(probe.windows().size(), windows.size(), checks, records.footer(), harts);
    }

    private static PairCheck checkPair(ProbeProgram.Probe probe, ProbePair p, ValidationWindow pw, ValidationWindow bw) {
        ProbeProgram.Kernel pk = probe.kernels().get(p.probeKernel());
        ProbeProgram.Kernel bk = probe.kernels().get(p.baselineKernel());
        Map<Long, Long> measured = new TreeMap<>();
        for (EncodingCount e : pw.encodings()) {
            measured.merge(key(e), e.count(), Long::sum);
        }
        for (EncodingCount e : bw.encodings()) {
            measured.merge(key(e), -e.count(), Long::sum);
        }
        TreeSet<Long> keys = new TreeSet<>(measured.keySet());
        keys.addAll(pk.perCall().keySet());
        keys.addAll(bk.perCall().keySet());
        String mismatch = null;
        for (long k : keys) {
            long expected = (long) p.calls() * (pk.perCall().getOrDefault(k, 0L) - bk.perCall().getOrDefault(k, 0L));
            long got = measured.getOrDefault(k, 0L);
            if (expected != got) {
                mismatch = String.format("encoding 0x%x (%d bytes): probe - baseline %d, expected %d",
                        k & 0xffff_ffffL, k >>> 32, got, expected);
                break;
            }
        }
        long target = 0;
        for (long k : pk.slotEncodings()) {
            target += measured.getOrDefault(k, 0L);
        }
        return new PairCheck(p.index(), p.context(), target, p.batch(), mismatch == null, mismatch);
    }

    private static long key(EncodingCount e) {
        return (long) e.size() << 32 | e.encoding();
    }
}
