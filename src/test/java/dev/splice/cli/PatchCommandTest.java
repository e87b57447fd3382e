package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PatchCommandTest {
    @TempDir Path tmp;

    private static int run(String... args) {
        return Main.execute(args);
    }

    @Test
    void insertsProbesFromTheExamplesAndTheResultRunsLikeTheOriginal() throws Exception {
        Path in = TestPrograms.rv64("count_loop.relocs");
        Path out = tmp.resolve("probed");
        Path root = TestPrograms.root();
        long loop = dev.splice.elf.ElfFile.read(in).symbol("loop_body").orElseThrow().value();
        assertEquals(0, run("patch", in.toString(), "--insert", "0x" + Long.toHexString(loop - 2),
                root.resolve("examples/cycle-probe-begin.s").toString(), "--insert", Long.toString(loop + 12),
                root.resolve("examples/cycle-probe-end.s").toString(), "-o", out.toString()));
        Tools.Result before = Tools.run("qemu-riscv64", in.toString(), "50");
        Tools.Result after = Tools.run("qemu-riscv64", out.toString(), "50");
        assertEquals(before.exitCode(), after.exitCode());
        assertTrue(Files.isExecutable(out));
    }

    @Test
    void refusalsExitWithStatus2AndWriteNothing() throws Exception {
        Path in = TestPrograms.rv64("loops");
        Path frag = tmp.resolve("nop.s");
        Files.writeString(frag, "addi x0, x0, 0\n");
        Path out = tmp.resolve("out");
        long fib = dev.splice.elf.ElfFile.read(in).function("fib").orElseThrow().address();
        assertEquals(2, run("patch", in.toString(), "--insert", Long.toString(fib), frag.toString(), "-o", out.toString()));
        assertTrue(!Files.exists(out));
        assertEquals(1, run("patch", in.toString(), "--insert", "0x1", "-o", out.toString()));
    }

    @Test
    void countersAreWrittenToTheCounterFileAtExit() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Path out = tmp.resolve("counted");
        Path counts = tmp.resolve("loops.counters");
        long fib = dev.splice.elf.ElfFile.read(in).function("fib").orElseThrow().address();
        assertEquals(0, run("patch", in.toString(), "--insert", Long.toString(fib),
                TestPrograms.root().resolve("examples/block-counter.s").toString(), "--counters", "3",
                "--counter-file", counts.toString(), "-o", out.toString()));
        Tools.Result before = Tools.run("qemu-riscv64", in.toString(), "50");
        Tools.Result after = Tools.run("qemu-riscv64", out.toString(), "50");
        assertEquals(before.exitCode(), after.exitCode());
        assertEquals(before.stdout(), after.stdout());
        byte[] b = Files.readAllBytes(counts);
        assertEquals(3 * 8, b.length, "--counters 3");
        long calls = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
        long entries = dev.splice.weigh.PluginFixtures.singleStepPcs(in, "50").stream().filter(pc -> pc == fib).count();
        assertEquals(entries, calls, "fib's entry, as often as QEMU ran it in the input");
        assertEquals(2, run("patch", in.toString(), "--counters", "-1", "--insert", Long.toString(fib),
                TestPrograms.root().resolve("examples/block-counter.s").toString(), "-o", tmp.resolve("x").toString()));
    }
}
