package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command family refuses a file argument that is not a regular file, before opening it (issue
 * 15): a FIFO with no writer (which would block {@code open} forever), {@code /dev/zero} (which
 * never ends) and a sparse file beyond the 1 GiB limit (which must not be allocated). Each is exit
 * 2 with the path in the message and no stack trace; a pipe given as {@code /dev/stdin} to {@code
 * bat translate --pa} is still read.
 */
class InputRefusalTest {
    @TempDir
    Path dir;

    /** The commands, each with the hostile path where a file argument goes. */
    private List<String[]> commands(String hostile, Path nop) {
        String loops = TestPrograms.rv64("loops.relocs").toString();
        String out = dir.resolve("out").toString();
        List<String[]> list = new ArrayList<>();
        list.add(new String[] {"asm", hostile, "-o", out});
        list.add(new String[] {"disasm", "--raw", hostile});
        list.add(new String[] {"patch", loops, "--insert-at-entries", hostile, "-o", out});
        list.add(new String[] {"patch", loops, "--insert", "0x" + Long.toHexString(main()), hostile, "-o", out});
        list.add(new String[] {"patch", loops, "--replace", "main", hostile, "-o", out});
        list.add(new String[] {"patch", loops, "--plan", hostile, "-o", out});
        list.add(new String[] {"bat", "translate", "--pa", hostile, loops, "-o", out});
        list.add(new String[] {"bat", "translate", "--perf-script", hostile, loops, "-o", out});
        list.add(new String[] {"weigh", "map", hostile, hostile, "-o", dir.toString()});
        list.add(new String[] {"disasm", hostile});
        return list;
    }

    private static long main() {
        return dev.splice.elf.ElfFile.read(TestPrograms.rv64("loops.relocs")).symbols().stream()
                .filter(s -> s.name().equals("main")).findFirst().orElseThrow().value();
    }

    private void assertRefused(String hostile) throws IOException {
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "nop\n");
        for (String[] args : commands(hostile, nop)) {
            CliRun r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.of(args), String.join(" ", args));
            assertEquals(Main.BAD_INPUT, r.status(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().contains(hostile), String.join(" ", args) + ": " + r.err());
            assertFalse(r.err().contains("\tat "), "a stack trace: " + r.err());
        }
    }

    @Test
    void aFifoWithNoWriterIsRefusedWithoutBlocking() throws IOException {
        Path fifo = dir.resolve("fifo");
        Tools.run("mkfifo", fifo.toString()).checked("mkfifo");
        assertRefused(fifo.toString());
    }

    @Test
    void aDeviceIsRefused() throws IOException {
        assertRefused("/dev/zero");
    }

    @Test
    void aSparseFileBeyondTheLimitIsRefusedBeforeAllocating() throws IOException {
        Path sparse = dir.resolve("sparse");
        try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "nop\n");
        String out = dir.resolve("out").toString();
        for (String[] args : List.of(new String[] {"asm", sparse.toString(), "-o", out},
                new String[] {"disasm", "--raw", sparse.toString()},
                new String[] {"patch", TestPrograms.rv64("loops.relocs").toString(), "--insert-at-entries", sparse.toString(), "-o", out},
                new String[] {"weigh", "map", sparse.toString(), sparse.toString(), "-o", dir.toString()})) {
            CliRun r = CliRun.of(args);
            assertEquals(Main.BAD_INPUT, r.status(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().contains("larger than the limit"), r.err());
        }
    }

    @Test
    void aPipeOnStandardInputIsReadAsAProfile() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String splice = java + " -cp " + System.getProperty("java.class.path") + " dev.splice.cli.Main";
        Path loops = TestPrograms.rv64("loops.relocs");
        Path out = dir.resolve("p.fdata");
        // One basic sample in main: an empty read would be the "empty profile" error.
        String script = "printf 'S %x 7\\n' " + main() + " | " + splice + " bat translate --ba --pa /dev/stdin "
                + loops + " -o " + out;
        Tools.Result r = Tools.run(List.of("bash", "-c", script), null, 120);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(Tools.run("cat", out.toString()).stdout().contains(" 7"), r.stderr());
    }
}
