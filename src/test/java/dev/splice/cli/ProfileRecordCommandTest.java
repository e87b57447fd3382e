package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.QemuRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `splice profile record` end to end, in its own JVM so that its standard streams and exit status are real. */
class ProfileRecordCommandTest {
    private static Tools.Result splice(String stdin, Path cwd, String... args) {
        List<String> command = new ArrayList<>(List.of(
                "java",
                "-cp", System.getProperty("java.class.path"),
                "-Dsplice.plugin=" + dev.splice.weigh.PluginFixtures.pluginLibrary(),
                Main.class.getName(), "profile"));
        command.addAll(List.of(args));
        if (cwd != null) {
            List<String> shell = List.of("sh", "-c", "cd \"$0\" && exec \"$@\"", cwd.toString());
            List<String> inDir = new ArrayList<>(shell);
            inDir.addAll(command);
            return Tools.run(inDir, stdin, 300);
        }
        return Tools.run(command, stdin, 300);
    }

    @Test
    void recordsAndPassesTheProgramsStreamsArgumentsAndExitStatus(@TempDir Path dir) throws Exception {
        String program = TestPrograms.rv64("echo_stdin").toString();
        Path out = dir.resolve("echo.fdata");
        Tools.Result r = splice("hello\n", null, "record", "-o", out.toString(), "--", program, "-x", "--format", "two words");
        assertEquals("hello\n", r.stdout());
        assertTrue(r.stderr().startsWith("-x\n--format\ntwo words\n"), r.stderr());
        assertEquals(6, r.exitCode(), "echo_stdin exits with the number of bytes read");
        assertTrue(r.stderr().contains("taken branches") && r.stderr().contains("(exit status 6)"), r.stderr());
        assertTrue(Files.readAllLines(out).stream().anyMatch(l -> l.startsWith("1 _start ")), Files.readString(out));
    }

    @Test
    void paFormatQuietAndTheDefaultOutputName(@TempDir Path dir) throws Exception {
        String program = TestPrograms.rv64("loops.relocs").toString();
        Tools.Result r = splice(null, dir, "record", "-q", "--format", "pa", program, "300");
        assertEquals(Tools.run(QemuRunner.QEMU, program, "300").exitCode(), r.exitCode());
        assertEquals("", r.stderr());
        List<String> lines = Files.readAllLines(dir.resolve("loops.relocs.pa"));
        assertTrue(lines.size() > 500 && lines.stream().allMatch(l -> l.startsWith("B ") || l.startsWith("F ")), lines.toString());
        Tools.Result fdata = splice(null, dir, "record", "-q", program, "300");
        assertEquals(r.exitCode(), fdata.exitCode());
        assertTrue(Files.exists(dir.resolve("loops.relocs.fdata")));
    }

    /**
     * A PIE runs where QEMU puts it (0x4000000000) and calls into the dynamic loader and libc: the
     * profile is in the binary's own addresses, foreign code is unknown, as perf2bolt-22 makes it
     * of the same records. QEMU finds the loader through QEMU_LD_PREFIX.
     */
    @Test
    void aPieIsProfiledInItsOwnAddresses(@TempDir Path dir) throws Exception {
        String program = TestPrograms.rv64Pie("loops").toString();
        List<String> env = List.of("env", "QEMU_LD_PREFIX=/usr/riscv64-linux-gnu");
        Path pa = dir.resolve("pie.pa");
        Path fdata = dir.resolve("pie.fdata");
        List<String> recordPa = new ArrayList<>(env);
        recordPa.addAll(List.of("java", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "profile",
                "record", "-q", "--format", "pa", "-o", pa.toString(), program));
        assertEquals(39, Tools.run(recordPa, null, 300).exitCode(), "loops' exit status");
        List<String> recordFdata = new ArrayList<>(recordPa);
        recordFdata.set(recordFdata.indexOf("pa"), "fdata");
        recordFdata.set(recordFdata.indexOf(pa.toString()), fdata.toString());
        assertEquals(39, Tools.run(recordFdata, null, 300).exitCode());
        Path theirs = dir.resolve("perf2bolt.fdata");
        Tools.run(List.of("perf2bolt-22", program, "-p", pa.toString(), "--pa", "-o", theirs.toString()), null, 300)
                .checked("perf2bolt-22");
        List<String> ours = Files.readAllLines(fdata).stream().filter(l -> !l.isBlank()).sorted().toList();
        assertEquals(Files.readAllLines(theirs).stream().filter(l -> !l.isBlank()).sorted().toList(), ours);
        assertTrue(ours.stream().anyMatch(l -> l.startsWith("1 hot_loop ")), ours.toString());
        assertTrue(ours.stream().anyMatch(l -> l.startsWith("0 [unknown] 0 1 main 0 ")), "main is entered from libc: " + ours);
    }

    @Test
    void threadsAreSummed(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("t.fdata");
        Tools.Result r = splice(null, null, "record", "-o", out.toString(), TestPrograms.rv64("threads_work.relocs").toString());
        assertEquals(7, r.exitCode());
        assertTrue(r.stderr().contains(" in 2 threads;"), r.stderr());
        // work's loop branch: 300 iterations in the main thread and 1000 in the other, taken all but the last time.
        assertTrue(Files.readAllLines(out).stream().anyMatch(l -> l.startsWith("1 work/1 e 1 work/1 2 0 1298")),
                Files.readString(out));
    }

    /**
     * A guest fork() forks QEMU and the plugin in it: the child (fork_child.S: a loop of 1,000
     * iterations) writes nothing, and the profile is the parent's, without the child's loop.
     */
    @Test
    void aForkedChildsBlocksAreNotRecorded(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("f.fdata");
        Tools.Result r = splice(null, null, "record", "-o", out.toString(), TestPrograms.rv64("fork_child").toString());
        assertEquals(5, r.exitCode(), r.stderr());
        List<String> lines = Files.readAllLines(out);
        assertTrue(lines.stream().noneMatch(l -> l.matches("1 \\S+ \\S+ 1 \\S+ \\S+ 0 999")),
                "the child's loop branch is not the parent's: " + lines);
        assertTrue(lines.stream().anyMatch(l -> !l.isBlank()), "the parent's fall-through to its exit: " + lines);
    }

    @Test
    void aProgramKilledByASignalKeepsItsStatusAndGetsNoProfile(@TempDir Path dir) {
        Path out = dir.resolve("x.fdata");
        Tools.Result r = splice(null, null, "record", "-o", out.toString(), TestPrograms.rv64("dies_of_signal").toString());
        assertEquals(128 + 11, r.exitCode());
        assertTrue(r.stderr().contains("no profile: the program died of signal 11"), r.stderr());
        assertFalse(Files.exists(out));
    }

    @Test
    void refusalsAndHelp(@TempDir Path dir) {
        Tools.Result missing = splice(null, null, "record", "-o", dir.resolve("m.fdata").toString(), "/no/such/program");
        assertEquals(Main.BAD_INPUT, missing.exitCode());
        assertTrue(missing.stderr().contains("/no/such/program: no such file"), missing.stderr());

        Tools.Result format = splice(null, null, "record", "--format", "yaml", TestPrograms.rv64("entries").toString());
        assertEquals(Main.USAGE, format.exitCode());
        assertTrue(format.stderr().contains("--format must be fdata or pa"), format.stderr());

        Tools.Result parent = splice(null, null);
        assertEquals(Main.USAGE, parent.exitCode());
        assertTrue(parent.stderr().contains("Missing subcommand"), parent.stderr());

        Tools.Result help = splice(null, null, "record", "--help");
        assertEquals(Main.OK, help.exitCode());
        assertTrue(help.stdout().contains("Usage: splice profile record") && help.stdout().contains("--format"), help.stdout());
        Tools.Result parentHelp = splice(null, null, "--help");
        assertTrue(parentHelp.stdout().contains("record"), parentHelp.stdout());
    }
}
