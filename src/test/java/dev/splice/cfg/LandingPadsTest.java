package dev.splice.cfg;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.unwind.EhFrameRanges;
import dev.splice.profile.Perf2boltAgreementTest;
import dev.splice.testing.BoltOutputs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The LSDA reader on damaged call-site tables. (That it finds BOLT's landing pads is checked
 * against perf2bolt-22 in {@code Perf2boltAgreementTest.fallthroughsInCodeWithoutTablesAreThoseOfPerf2boltsCfg}.)
 */
class LandingPadsTest {
    @Test
    void mutatedTablesAreReadOrRefused() {
        ElfFile elf = ElfFile.read(BoltOutputs.get("rv64-exceptions-split-hfsort").output());
        List<long[]> lsdas = new ArrayList<>(); // {function start, LSDA address}
        for (Map.Entry<Long, Long> e : EhFrameRanges.lsdas(elf).entrySet()) {
            lsdas.add(new long[] {e.getKey(), e.getValue()});
        }
        assertTrue(lsdas.size() > 0, "no LSDAs");
        Random random = new Random(7);
        int read = 0;
        for (int trial = 0; trial < 2000; trial++) {
            long[] lsda = lsdas.get(random.nextInt(lsdas.size()));
            dev.splice.elf.Section s = elf.sections().stream()
                    .filter(x -> x.isAllocated() && !x.isNobits() && lsda[1] >= x.address() && lsda[1] < x.address() + x.size())
                    .findFirst().orElseThrow();
            byte[] b = elf.contents(s).clone();
            int at = (int) (lsda[1] - s.address());
            for (int k = 0; k < 1 + random.nextInt(3); k++) {
                b[Math.min(b.length - 1, at + random.nextInt(24))] = (byte) random.nextInt(256);
            }
            if (random.nextInt(4) == 0) {
                b = java.util.Arrays.copyOf(b, at + 1 + random.nextInt(b.length - at));
            }
            try {
                long[] pads = LandingPads.read(b, s.address(), at, lsda[0], "mutated");
                assertTrue(pads.length <= b.length, "more pads than bytes");
                read++;
            } catch (BadInputException e) {
                assertTrue(e.getMessage().startsWith("mutated: offset "), e.getMessage());
            }
        }
        assertTrue(read > 0, "every mutation refused");
    }
}
