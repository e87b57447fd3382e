package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.campaign.PluginRecords;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Count mode: exact executed-instruction counts, checked by construction and against QEMU's own exec log. */
class PluginCountTest {
    /** Instructions in count_loop's loop body (tests/programs/count_loop.S). */
    private static final int LOOP_BODY = 5;

    private static long count(Path binary, String... args) {
        QemuRunner.Result r = PluginFixtures.run(PluginRecords.Mode.COUNT, binary, args);
        PluginRecords records = r.records().orElseThrow();
        assertEquals(PluginRecords.Mode.COUNT, records.mode());
        PluginFixtures.assertClean(records);
        return records.executedInstructions().orElseThrow();
    }

    @Test
    void theLoopAddsExactlyItsBodyPerIteration() {
        Path program = TestPrograms.rv64("count_loop");
        // Equal digit counts: argument parsing costs the same, only the iterations differ.
        long n1000 = count(program, "1000");
        long n5000 = count(program, "5000");
        long n9999 = count(program, "9999");
        assertEquals(LOOP_BODY * 4000L, n5000 - n1000);
        assertEquals(LOOP_BODY * 8999L, n9999 - n1000);
    }

    @Test
    void countsMatchQemusSingleStepExecLog() {
        Path program = TestPrograms.rv64("count_loop");
        for (String n : new String[] {"0", "7", "1000", "5000"}) {
            assertEquals(PluginFixtures.singleStepCount(program, n), count(program, n), "count_loop " + n);
        }
        Path entries = TestPrograms.rv64("entries");
        assertEquals(PluginFixtures.singleStepCount(entries), count(entries));
    }

    @Test
    void compressionDoesNotChangeTheCount() {
        assertEquals(count(TestPrograms.rv64("count_loop"), "321"), count(TestPrograms.rv64("count_loop.norvc"), "321"));
    }

    @Test
    void theGuestsExitStatusPassesThrough() {
        Path program = TestPrograms.rv64("entries");
        int plain = Tools.run(QemuRunner.QEMU, program.toString()).exitCode();
        assertEquals(42, plain, "entries exits 42 by construction");
        assertEquals(plain, PluginFixtures.run(PluginRecords.Mode.COUNT, program).exitCode());
    }

    @Test
    void aCProgramWithExceptionsCountsExactly() {
        // Static glibc and C++ unwinding: blocks left through signals and syscalls.
        Path program = TestPrograms.rv64("loops");
        assertEquals(PluginFixtures.singleStepCount(program), count(program));
    }

    @Test
    void aForkedChildIsNeitherCountedNorAllowedToDamageTheRecords() {
        // fork_child.S: the parent executes exactly 15 instructions, the child about 2000.
        Path program = TestPrograms.rv64("fork_child");
        QemuRunner.Result r = PluginFixtures.run(PluginRecords.Mode.COUNT, program);
        assertEquals(5, r.exitCode(), "the parent's exit status");
        assertEquals(15, r.records().orElseThrow().executedInstructions().orElseThrow());
    }

    @Test
    void aGuestKilledByASignalLeavesNoRecordsAndNoCount() {
        QemuRunner.CountedRun run = PluginFixtures.runner().count(TestPrograms.rv64("dies_of_signal"), List.of(),
                new QemuRunner.Streams(Redirect.INHERIT, Redirect.DISCARD,
                        Redirect.DISCARD));
        assertEquals(128 + 11, run.exitCode());
        assertEquals(OptionalLong.empty(), run.executedInstructions());
    }

    @Test
    void aMultiThreadedGuestGetsNoCount() {
        Path program = TestPrograms.rv64("two_threads");
        QemuRunner.Result r = PluginFixtures.run(PluginRecords.Mode.COUNT, program);
        assertEquals(7, r.exitCode());
        assertEquals(2, r.records().orElseThrow().footer().vcpus(), "two guest threads, two vCPUs");
        BadInputException e = assertThrows(BadInputException.class,
                () -> PluginFixtures.runner().count(program, List.of(), new QemuRunner.Streams(
                        Redirect.INHERIT, Redirect.DISCARD,
                        Redirect.INHERIT)));
        assertTrue(e.getMessage().contains("ran 2 guest threads"), e.getMessage());
    }
}
