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
 * of one function's counters, the fdata, and refusals with exit status 2.
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
}
