package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trace-mode record format (docs/formats.md): reading, summing, and the pre-aggregated records. */
class TraceRecordsTest {
    private static final String HEADER = "splice-plugin-records 1\nmode trace\napi 1 0\nmarkers 0x5a102013 0x5a002013\n"
            + "range 0x10000 0x20000\n";
    private static final String FOOTER = "footer windows 0 nested_starts 0 inactive_stops 0 translation_failures 0"
            + " timer_failures 0 open_windows 0 vcpus 2 translations 9\nend\n";
    private static final String TWO_THREADS = HEADER + "threads 2 lost_threads 0 out_of_memory 0\n"
            + "thread 0 branches 2 ranges 2 discontinuities 0\n"
            + "b 0x10010 0x10000 4\nb 0x10020 0x10100 1\n"
            + "f 0x10000 0x10010 4\nf 0x10100 0x10104 1\n"
            + "thread 1 branches 1 ranges 2 discontinuities 1\n"
            + "b 0x10010 0x10000 3\nf 0x10000 0x10010 3\nf 0x10200 0x10204 1\nd 0x10204 0x10000 1\n" + FOOTER;

    @Test
    void threadsAreReadAndSummed() {
        TraceRecords t = TraceRecords.parse(TWO_THREADS, "t.records");
        assertTrue(t.exact());
        assertEquals(2, t.threads().size());
        assertEquals(Map.of(new TraceRecords.Transfer(0x10204, 0x10000), 1L), t.threads().get(1).discontinuities());
        TraceRecords.ThreadTrace sum = t.summed();
        assertEquals(7L, sum.branches().get(new TraceRecords.Transfer(0x10010, 0x10000)));
        assertEquals("B 10010 10000 7 0\nB 10020 10100 1 0\nF 10000 10010 7\nF 10100 10104 1\nF 10200 10204 1\n",
                t.preAggregated(a -> a), "discontinuities are no branches");
    }

    @Test
    void addressesAreMappedIntoTheBinaryAndForeignOnesMerge() {
        TraceRecords t = TraceRecords.parse(TWO_THREADS, "t.records");
        assertEquals(0x10000, t.loadedCode());
        // Only 0x10000..0x10100 is "the binary" here, shifted down by 0x10000; the rest becomes 0.
        String pa = t.preAggregated(a -> a >= 0x10000 && a < 0x10100 ? a - 0x10000 : 0);
        assertEquals("B 10 0 7 0\nB 20 0 1 0\nF 0 0 2\nF 0 10 7\n", pa);
    }

    @Test
    void lossesMakeATraceInexact() {
        TraceRecords t = TraceRecords.parse(TWO_THREADS.replace("lost_threads 0", "lost_threads 3"), "t");
        assertFalse(t.exact());
        assertFalse(TraceRecords.parse(TWO_THREADS.replace("translation_failures 0", "translation_failures 1"), "t").exact());
    }

    @Test
    void malformedFilesAreRefusedWithTheirLine() {
        assertEquals("t:2: records of mode count, not trace: 'mode count'", refused(TWO_THREADS.replace("mode trace", "mode count")));
        assertEquals("t:9: expected 'b FROM TO COUNT': 'f 0x10020 0x10100 1'",
                refused(TWO_THREADS.replace("b 0x10020 0x10100 1", "f 0x10020 0x10100 1")));
        assertEquals("t:10: a count must be positive: 'f 0x10000 0x10010 0'", refused(TWO_THREADS.replace("f 0x10000 0x10010 4", "f 0x10000 0x10010 0")));
        assertEquals("t:9: not a 0x address: '10020': 'b 10020 0x10100 1'", refused(TWO_THREADS.replace("b 0x10020", "b 10020")));
        assertTrue(refused(TWO_THREADS.substring(0, TWO_THREADS.indexOf("footer"))).contains("the file ends before the footer"));
        assertTrue(refused(TWO_THREADS.replace("\nend\n", "\n")).contains("the file ends before the end line"));
        assertEquals("t:5: no 'range MIN MAX' line before it: 'threads 2 lost_threads 0 out_of_memory 0'",
                refused(TWO_THREADS.replace("range 0x10000 0x20000\n", "")));
    }

    private static String refused(String text) {
        return assertThrows(BadInputException.class, () -> TraceRecords.parse(text, "t")).getMessage();
    }
}
