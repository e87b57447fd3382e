package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code splice instrument} and {@code splice profile convert} from the command line: help, a run
 * of one function's counters, the fdata, refusals with exit status 2, and a runtime object linked
 * with {@code --runtime}.
 */
class InstrumentCommandTest {
    @TempDir Path dir;

    @Test
    void instrumentRunConvert() throws Exception {
        assertEquals(0, CliRun.of("instrument", "--help").status());
        assertEquals(0, CliRun.of("profile", "convert", "--help").status());
        Path out = dir.resolve("loops.inst");
        Path counters = dir.resolve("loops.counters");
        CliRun r = CliRun.of("instrument", TestPrograms.rv64("loops.relocs").toString(), "-o", out.toString(),
                "--functions", "hot_*", "--functions", "classify", "--profile-file", counters.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains("instrumented 2 functions"), r.err());
        Tools.run("qemu-riscv64", out.toString(), "60");
        Path fdata = dir.resolve("loops.fdata");
        r = CliRun.of("profile", "convert", out.toString(), counters.toString(), "-o", fdata.toString());
        assertEquals(0, r.status(), r.err());
        String text = Files.readString(fdata);
        assertTrue(text.lines().anyMatch(l -> l.equals("1 hot_loop 1e 1 hot_loop a 0 59")), text); // the loop's back edge, 59 times
        assertTrue(text.lines().allMatch(l -> l.startsWith("1 hot_loop ") || l.startsWith("1 classify ")), text);
        r = CliRun.of("profile", "convert", TestPrograms.rv64("loops.relocs").toString(), counters.toString(), "-o",
                fdata.toString());
        assertEquals(2, r.status());
        assertTrue(r.err().contains("no .splice.edge_map section"), r.err());
    }

    /**
     * {@code --runtime exit_note.o} (tests/programs/runtime/exit_note.c): its {@code __splice_user_exit}
     * writes one line to stderr at exit, before the counters are written; the program prints and
     * exits as the input does, and the counters are byte for byte those of the output without it.
     */
    @Test
    void aRuntimeObjectRunsItsExitFunctionBeforeTheCountersAreWritten() throws Exception {
        Path object = TestPrograms.dir().resolve("rv64-runtime/exit_note.o");
        assertTrue(Files.exists(object), object + " is missing: run make programs");
        String in = TestPrograms.rv64("loops.relocs").toString();
        String[] functions = {"--functions", "main", "--functions", "classify", "--functions", "hot_loop", "--functions", "fib"};
        Tools.Result original = Tools.run("qemu-riscv64", in, "300");
        byte[][] counters = new byte[2][];
        for (int k = 0; k < 2; k++) {
            Path out = dir.resolve("loops.inst" + k);
            Path file = dir.resolve("loops.counters" + k);
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("instrument", in, "-o", out.toString(),
                    "--profile-file", file.toString()));
            args.addAll(java.util.List.of(functions));
            if (k == 1) {
                args.addAll(java.util.List.of("--runtime", object.toString()));
            }
            CliRun r = CliRun.of(args.toArray(String[]::new));
            assertEquals(0, r.status(), r.err());
            Tools.Result run = Tools.run("qemu-riscv64", out.toString(), "300");
            assertEquals(original.stdout(), run.stdout());
            assertEquals(original.exitCode(), run.exitCode());
            long notes = run.stderr().lines().filter(l -> l.equals("splice exit note: the counters follow")).count();
            assertEquals(k, notes, "the exit note, once with the object and never without: " + run.stderr());
            counters[k] = Files.readAllBytes(file);
        }
        assertTrue(counters[0].length > 0);
        assertTrue(java.util.Arrays.equals(counters[0], counters[1]), "the same counters with the object linked");

        CliRun refused = CliRun.of("instrument", in, "-o", dir.resolve("x").toString(), "--runtime", in);
        assertEquals(2, refused.status(), refused.err());
        assertTrue(refused.err().contains("ET_REL") || refused.err().contains("relocatable"), refused.err());
    }
}
