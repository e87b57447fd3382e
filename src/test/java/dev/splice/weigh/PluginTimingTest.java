package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.weigh.campaign.PluginRecords.TimingWindow;
import dev.splice.weigh.campaign.PluginRecords.ValidationWindow;
import dev.splice.weigh.campaign.PluginRecords;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Timing mode on tests/programs/plugin_markers.S, cross-checked with validation mode and objdump. */
class PluginTimingTest {
    private static Path program;
    private static PluginRecords timing;

    @BeforeAll
    static void runOnce() {
        program = TestPrograms.rv64("plugin_markers");
        QemuRunner.Result r = PluginFixtures.run(PluginRecords.Mode.TIMING, program);
        assertEquals(0, r.exitCode());
        timing = r.records().orElseThrow();
    }

    @Test
    void everyWindowHasAnOrderedThreadCpuTime() {
        assertEquals(PluginRecords.Mode.TIMING, timing.mode());
        List<TimingWindow> windows = timing.timingWindows();
        assertEquals(9, windows.size());
        assertEquals(9, timing.footer().windows());
        long previousStop = 0;
        for (TimingWindow w : windows) {
            assertFalse(w.timerFailed());
            assertTrue(w.startNs() > 0, "thread CPU time is running");
            assertTrue(w.elapsedNs() >= 0, "window " + w.index());
            assertTrue(w.startNs() >= previousStop, "windows follow each other in time");
            previousStop = w.stopNs();
        }
        PluginFixtures.assertClean(timing);
        assertEquals(1, timing.footer().nestedStarts());
        assertEquals(1, timing.footer().inactiveStops());
    }

    @Test
    void windowsSitOnTheSameMarkersAsInValidationMode() {
        PluginRecords validation = PluginFixtures.run(PluginRecords.Mode.VALIDATION, program).records().orElseThrow();
        List<ValidationWindow> expected = validation.validationWindows();
        List<TimingWindow> windows = timing.timingWindows();
        assertEquals(expected.size(), windows.size());
        for (int i = 0; i < windows.size(); i++) {
            assertEquals(expected.get(i).startPc(), windows.get(i).startPc(), "window " + i);
            assertEquals(expected.get(i).stopPc(), windows.get(i).stopPc(), "window " + i);
        }
        List<Long> starts = PluginFixtures.objdumpAddresses(program, "slti\tzero,zero,1441");
        assertEquals(starts.get(0), windows.get(0).startPc());
    }

    @Test
    void translationInsideAWindowIsReported() {
        List<TimingWindow> windows = timing.timingWindows();
        assertTrue(windows.get(7).translations() > 0, "the first call of fresh is translated inside window 7");
        assertEquals(0, windows.get(8).translations(), "the second call runs translated code");
        for (int i = 1; i < 5; i++) {
            assertEquals(0, windows.get(i).translations(), "window " + i + " repeats window 0's code");
        }
    }
}
