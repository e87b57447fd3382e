package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.QemuRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** `splice run` end to end, in its own JVM so that its standard streams and exit status are real. */
class RunCommandTest {
    private static Tools.Result splice(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(
                "java",
                "-cp", System.getProperty("java.class.path"),
                "-Dsplice.plugin=" + TestPrograms.root().resolve("build/qemu-plugin/libsplice-plugin.so"),
                Main.class.getName(), "run"));
        command.addAll(List.of(args));
        return Tools.run(command, stdin, 120);
    }

    @Test
    void streamsArgumentsAndExitStatusPassThrough() {
        String program = TestPrograms.rv64("echo_stdin").toString();
        Tools.Result r = splice("hello\n", program, "-x", "--count", "two words");
        assertEquals("hello\n", r.stdout());
        assertEquals("-x\n--count\ntwo words\n", r.stderr());
        assertEquals(6, r.exitCode(), "echo_stdin exits with the number of bytes read");
        Tools.Result direct = Tools.run(List.of(qemu(), program, "-x", "--count", "two words"), "hello\n", 60);
        assertEquals(direct.exitCode(), r.exitCode());
    }

    /** --cpu is QEMU's -cpu: the vectorized program runs with V and dies of SIGILL without it. */
    @Test
    void cpuModelIsQemus() {
        String program = TestPrograms.rv64Vector("vloops").toString();
        Tools.Result direct = Tools.run(List.of(qemu(), "-cpu", TestPrograms.VECTOR_CPU, program), "", 60);
        assertEquals(0, direct.exitCode(), direct.stderr());
        Tools.Result r = splice("", "--cpu", TestPrograms.VECTOR_CPU, program);
        assertEquals(direct.stdout(), r.stdout());
        assertEquals(0, r.exitCode(), r.stderr());
        Tools.Result counted = splice("", "--count", "--cpu", TestPrograms.VECTOR_CPU, program);
        assertEquals(direct.stdout(), counted.stdout());
        assertTrue(counted.stderr().contains("instructions executed (exit status 0)"), counted.stderr());
        assertEquals(128 + 4, splice("", program).exitCode(), "without V: SIGILL");
    }

    /** A dynamically linked program runs with the default sysroot; --sysroot and SPLICE_SYSROOT override it. */
    @Test
    void dynamicallyLinkedProgramsFindTheirSysroot() {
        String pie = TestPrograms.rv64Pie("loops").toString();
        Tools.Result direct = Tools.run(List.of(qemu(), "-L", "/usr/riscv64-linux-gnu", pie, "50"), "", 60);
        assertTrue(direct.stdout().startsWith("hot_loop="), direct.stderr());
        Tools.Result r = splice("", pie, "50");
        assertEquals(direct.stdout(), r.stdout());
        assertEquals(direct.exitCode(), r.exitCode());
        Tools.Result option = splice("", "--sysroot", "/usr/riscv64-linux-gnu", pie, "50");
        assertEquals(direct.stdout(), option.stdout());
        Tools.Result missing = splice("", "--sysroot", "/nonexistent", pie, "50");
        assertEquals(2, missing.exitCode());
        assertTrue(missing.stderr().contains("sysroot /nonexistent") && missing.stderr().contains("no directory"), missing.stderr());
        List<String> env = new ArrayList<>(List.of("env", "SPLICE_SYSROOT=/nonexistent"));
        Tools.Result fromEnv = Tools.run(withPrefix(env, pie, "50"), "", 120);
        assertEquals(2, fromEnv.exitCode(), fromEnv.stderr());
        assertTrue(fromEnv.stderr().contains("check --sysroot or SPLICE_SYSROOT"), fromEnv.stderr());
        // a program that loads a shared library of its own: LD_LIBRARY_PATH passes through QEMU
        String main = TestPrograms.rv64Shared("clib_main").toString();
        Tools.Result lib = Tools.run(withPrefix(new ArrayList<>(List.of("env", "LD_LIBRARY_PATH=" + TestPrograms.rv64SharedDir())),
                main, "50"), "", 120);
        assertTrue(lib.stdout().startsWith("checksum="), lib.stderr());
        // QEMU_LD_PREFIX set: Splice leaves the prefix to QEMU, and a static program runs whatever it names
        Tools.Result stat = Tools.run(withPrefix(new ArrayList<>(List.of("env", "QEMU_LD_PREFIX=/nonexistent")),
                TestPrograms.rv64("loops").toString(), "50"), "", 120);
        assertEquals(direct.stdout(), stat.stdout(), stat.stderr());
    }

    /** The `splice run` command line after {@code prefix} (an {@code env} call). */
    private static List<String> withPrefix(List<String> prefix, String... args) {
        prefix.addAll(List.of("java", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run"));
        prefix.addAll(List.of(args));
        return prefix;
    }

    private static String qemu() {
        return QemuRunner.QEMU;
    }

    @Test
    void countReportsTheExactInstructionCountOnStderr() throws Exception {
        String program = TestPrograms.rv64("count_loop").toString();
        Tools.Result r = splice(null, "--count", "--json", program, "1000");
        assertEquals("", r.stdout());
        JsonNode report = new ObjectMapper().readTree(r.stderr().trim());
        int plainExit = Tools.run(qemu(), program, "1000").exitCode();
        assertEquals(plainExit, r.exitCode());
        assertEquals(plainExit, report.get("exit_code").asInt());
        Tools.Result r5000 = splice(null, "--count", "--json", program, "5000");
        long n1000 = report.get("instructions").asLong();
        long n5000 = new ObjectMapper().readTree(r5000.stderr().trim()).get("instructions").asLong();
        assertEquals(5 * 4000L, n5000 - n1000, "5 instructions per iteration, by construction");

        Tools.Result text = splice(null, "--count", program, "1000");
        assertEquals("splice: " + n1000 + " instructions executed (exit status " + plainExit + ")\n", text.stderr());
    }

    @Test
    void aProgramKilledByASignalKeepsItsStatusAndGetsNoCount() throws Exception {
        String program = TestPrograms.rv64("dies_of_signal").toString();
        Tools.Result r = splice(null, "--count", "--json", program);
        assertEquals(128 + 11, r.exitCode());
        String last = r.stderr().strip().lines().reduce((a, b) -> b).orElseThrow();
        JsonNode report = new ObjectMapper().readTree(last);
        assertTrue(report.get("instructions").isNull());
        assertEquals(11, report.get("signal").asInt());
    }

    @Test
    void refusalsExplainThemselves() {
        Tools.Result missing = splice(null, "--count", "/no/such/program");
        assertEquals(Main.BAD_INPUT, missing.exitCode());
        assertTrue(missing.stderr().contains("/no/such/program: no such file"), missing.stderr());

        Tools.Result jsonAlone = splice(null, "--json", TestPrograms.rv64("entries").toString());
        assertEquals(Main.USAGE, jsonAlone.exitCode());
        assertTrue(jsonAlone.stderr().contains("--json needs --count"), jsonAlone.stderr());
    }

    @Test
    void aMissingPluginIsNamedWithItsPath() {
        List<String> command = List.of("java",
                "-cp", System.getProperty("java.class.path"), "-Dsplice.plugin=/nonexistent/libsplice-plugin.so",
                Main.class.getName(), "run", "--count", TestPrograms.rv64("entries").toString());
        Tools.Result r = Tools.run(command, null, 120);
        assertEquals(Main.BAD_INPUT, r.exitCode());
        assertTrue(r.stderr().contains("/nonexistent/libsplice-plugin.so does not exist"), r.stderr());
    }
}
