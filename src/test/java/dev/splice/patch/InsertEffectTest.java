package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exact effect of insertions: instruction counts and cycle probes. */
class InsertEffectTest {
    @TempDir Path tmp;

    private static long count(Path binary, String n) {
        QemuRunner.Streams quiet = new QemuRunner.Streams(Redirect.PIPE, Redirect.DISCARD, Redirect.DISCARD);
        return new QemuRunner(QemuPlugin.locate()).count(binary, List.of(n), quiet).executedInstructions().orElseThrow();
    }

    @Test
    void aFragmentOfKInstructionsInALoopOfNIterationsAddsExactlyKTimesN() throws Exception {
        Path in = TestPrograms.rv64("count_loop.relocs");
        ElfFile elf = ElfFile.read(in);
        long loop = elf.symbol("loop_body").orElseThrow().value();
        String three = "addi x0, x0, 0\naddi x0, x0, 0\naddi x0, x0, 0\n";
        Path inserted = PatchFixtures.write(tmp, "inserted",
                Inserter.insert(elf, List.of(new Insertion(loop, three, BranchTarget.INSERTED))));
        Path original = PatchFixtures.write(tmp, "original",
                Inserter.insert(elf, List.of(new Insertion(loop, three, BranchTarget.ORIGINAL))));
        for (String n : List.of("7", "40", "999")) {
            long base = count(in, n);
            long times = Long.parseLong(n);
            assertEquals(base + 3 * times, count(inserted, n), "INSERTED, N = " + n);
            // the back edge skips the fragment: only the fall-through into the loop runs it
            assertEquals(base + 3, count(original, n), "ORIGINAL, N = " + n);
        }
        PatchFixtures.assertSameRun(in, inserted, "123");
        PatchFixtures.assertSameRun(in, original, "123");
    }

    /** Prints rdcycle(now) - s4 as 16 hex digits and a newline; uses t0-t3, a0-a2, a7 and 32 bytes of stack. */
    static final String PRINT_CYCLES = String.join("\n",
            "rdcycle s5", "sub s5, s5, s4", "addi sp, sp, -32", "addi t0, x0, 16", "addi t1, sp, 15",
            "1: andi t2, s5, 15", "addi t2, t2, 48", "addi t3, x0, 58", "blt t2, t3, 2f", "addi t2, t2, 39",
            "2: sb t2, 0(t1)", "srli s5, s5, 4", "addi t1, t1, -1", "addi t0, t0, -1", "bne t0, x0, 1b",
            "addi t0, x0, 10", "sb t0, 16(sp)", "addi a0, x0, 1", "addi a1, sp, 0", "addi a2, x0, 17", "addi a7, x0, 64",
            "ecall", "addi sp, sp, 32", "");

    @Test
    void cycleProbesAroundTheLoopGrowWithTheTripCount() throws Exception {
        Path in = TestPrograms.rv64("count_loop.relocs");
        ElfFile elf = ElfFile.read(in);
        long run = elf.symbol("run").map(s -> s.value()).orElse(-1L);
        long done = elf.symbol("done").map(s -> s.value()).orElse(-1L);
        if (run < 0 || done < 0) {
            // local labels are not in the symbol table: find them from loop_body (run: beqz s0, done is just before)
            long loop = elf.symbol("loop_body").orElseThrow().value();
            run = loop - 2;
            done = loop + 16;
        }
        Path probed = PatchFixtures.write(tmp, "probed", Inserter.insert(elf, List.of(
                new Insertion(run, "rdcycle s4\n", BranchTarget.INSERTED),
                new Insertion(done, PRINT_CYCLES, BranchTarget.INSERTED))));
        long small = reading(probed, "100");
        long large = reading(probed, "1000000");
        assertTrue(small > 0 && large > 10 * small, small + " vs " + large);
        assertEquals(PatchFixtures.qemu(in, "100").exitCode(), PatchFixtures.qemu(probed, "100").exitCode());
    }

    private static long reading(Path binary, String n) {
        Tools.Result r = PatchFixtures.qemu(binary, n);
        String out = r.stdout().trim();
        assertTrue(out.matches("[0-9a-f]{16}"), "probe output: '" + out + "' " + r.stderr());
        return Long.parseUnsignedLong(out, 16);
    }
}
