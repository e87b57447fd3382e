package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.weigh.campaign.PluginRecords.EncodingCount;
import dev.splice.weigh.campaign.PluginRecords.ValidationWindow;
import dev.splice.weigh.campaign.PluginRecords;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Validation mode on tests/programs/plugin_markers.S: exact per-window encoding counts (encodings
 * from llvm-mc-22, marker addresses from GNU objdump) and the marker-discipline counters.
 */
class PluginValidationTest {
    private static Path program;
    private static PluginRecords records;

    @BeforeAll
    static void runOnce() {
        program = TestPrograms.rv64("plugin_markers");
        QemuRunner.Result r = PluginFixtures.run(PluginRecords.Mode.VALIDATION, program);
        assertEquals(0, r.exitCode());
        records = r.records().orElseThrow();
    }

    /** Encoding and size as llvm-mc-22 assembles the instruction, with its expected count. */
    private static void expect(Map<List<Long>, Long> expected, String instruction, String attributes, long count) {
        long encoding = PluginFixtures.llvmMcEncoding(instruction, attributes);
        long size = PluginFixtures.llvmMcSize(instruction, attributes);
        expected.merge(List.of(encoding, size), count, Long::sum);
    }

    private static Map<List<Long>, Long> actual(ValidationWindow w) {
        Map<List<Long>, Long> m = new HashMap<>();
        for (EncodingCount e : w.encodings()) {
            m.put(List.of(e.encoding(), (long) e.size()), e.count());
        }
        return m;
    }

    @Test
    void headerNamesTheMarkersAndTheExecutablesCodeRange() {
        assertEquals(PluginRecords.Mode.VALIDATION, records.mode());
        assertEquals(PluginFixtures.llvmMcEncoding("slti zero, zero, 0x5a1", ""), records.startMarker());
        assertEquals(PluginFixtures.llvmMcEncoding("slti zero, zero, 0x5a0", ""), records.stopMarker());
        for (long pc : PluginFixtures.objdumpAddresses(program, "slti\tzero,zero,")) {
            assertTrue(pc >= records.minPc() && pc < records.maxPc(), "marker inside the code range");
        }
        assertTrue(records.apiMinimum() <= 1 && records.apiCurrent() >= 1, "QEMU supports API version 1");
    }

    @Test
    void straightLineWindowsCountEveryEncodingExactly() {
        Map<List<Long>, Long> expected = new HashMap<>();
        expect(expected, "addi t1, t1, 1", "", 4);
        expect(expected, "c.addi t2, 1", "+c", 2);
        expect(expected, "mul t3, t1, t2", "+m", 1);
        for (int i = 0; i < 5; i++) {
            ValidationWindow w = records.validationWindows().get(i);
            assertEquals(expected, actual(w), "window " + i);
            assertEquals(7, w.executed());
        }
    }

    @Test
    void aLoopInsideAWindowCountsEveryIteration() {
        Map<List<Long>, Long> expected = new HashMap<>();
        expect(expected, "addi t4, zero, 7", "", 1);
        expect(expected, "addi t4, t4, -1", "", 7);
        expect(expected, "bne t4, zero, -4", "", 7);
        assertEquals(expected, actual(records.validationWindows().get(5)));
    }

    @Test
    void markerDisciplineIsCountedNotAccepted() {
        // plugin_markers.S has one start inside an open window and one stop with no window open.
        assertEquals(1, records.footer().nestedStarts());
        assertEquals(1, records.footer().inactiveStops());
        PluginFixtures.assertClean(records);
        assertTrue(!records.footer().clean(), "a run with marker errors is not clean");
        // The nested start is ignored: the window runs from the first start to the stop.
        Map<List<Long>, Long> expected = new HashMap<>();
        expect(expected, "addi t5, t5, 5", "", 1);
        ValidationWindow nested = records.validationWindows().get(6);
        assertEquals(expected, actual(nested));
        List<Long> starts = PluginFixtures.objdumpAddresses(program, "slti\tzero,zero,1441");
        List<Long> stops = PluginFixtures.objdumpAddresses(program, "slti\tzero,zero,1440");
        // Markers in program order: 3 windows' starts, then the nested pair, then the call loop.
        assertEquals(starts.get(2), nested.startPc());
        assertEquals(stops.get(2), nested.stopPc());
    }

    @Test
    void windowsRecordTheirMarkerAddressesAndTranslations() {
        List<Long> starts = PluginFixtures.objdumpAddresses(program, "slti\tzero,zero,1441");
        List<Long> stops = PluginFixtures.objdumpAddresses(program, "slti\tzero,zero,1440");
        assertEquals(5, starts.size());
        assertEquals(5, stops.size());
        List<ValidationWindow> windows = records.validationWindows();
        assertEquals(9, windows.size());
        assertEquals(9, records.footer().windows());
        int[] startIndex = {0, 0, 0, 0, 0, 1, 2, 4, 4};
        int[] stopIndex = {0, 0, 0, 0, 0, 1, 2, 4, 4};
        for (int i = 0; i < windows.size(); i++) {
            assertEquals(starts.get(startIndex[i]), windows.get(i).startPc(), "window " + i + " start");
            assertEquals(stops.get(stopIndex[i]), windows.get(i).stopPc(), "window " + i + " stop");
            assertEquals(i, windows.get(i).index());
        }
        // The first call of `fresh` happens inside window 7: translation inside the window.
        assertTrue(windows.get(7).translations() > 0, "window 7 translates fresh");
        assertEquals(0, windows.get(8).translations(), "window 8 runs translated code");
        for (int i = 1; i < 5; i++) {
            assertEquals(0, windows.get(i).translations(), "window " + i);
        }
    }

    @Test
    void theCallWindowsCountTheCallTheCalleeAndTheReturn() {
        long callAddress = PluginFixtures.objdumpAddresses(program, " <fresh>").get(0); // jal ra, fresh
        Map<List<Long>, Long> expected = new HashMap<>();
        expected.put(List.of(PluginFixtures.objdumpWord(program, callAddress), 4L), 1L);
        expect(expected, "addi a1, a1, 9", "", 1);
        expect(expected, "jalr zero, 0(ra)", "", 1);
        assertEquals(expected, actual(records.validationWindows().get(7)));
        assertEquals(expected, actual(records.validationWindows().get(8)));
    }
}
