package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outputs that carry the runtime (counters, {@code {counter}}, calls to its helpers) under
 * llvm-bolt-22 (issue 17): the runtime's own auipc pairs, calls and branches have relocations in
 * {@code .rela.splice.text}, its parameters are data outside the code, so BOLT rewrites the output
 * and the BOLTed program prints the same and writes the same counters; a second patch of such an
 * output works too.
 */
class RuntimeUnderBoltTest {
    @TempDir Path tmp;

    /** Counts through the runtime's helper, at every block of {@code hot_loop} and {@code classify}. */
    private static final String HELPER_CALL = String.join("\n", "addi sp, sp, -16", "sd ra, 0(sp)", "sd a0, 8(sp)",
            "la a0, {counter}", "call __splice_count", "ld ra, 0(sp)", "ld a0, 8(sp)", "addi sp, sp, 16", "");

    @Test
    void boltRewritesAnOutputWithTheRuntimeAndItCountsTheSame() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        Path file = tmp.resolve("counters");
        Rewrite r = Rewrite.of(elf).counterFile(file.toString());
        int points = 0;
        for (String name : List.of("hot_loop", "classify")) {
            Function f = elf.function(name).orElseThrow();
            for (long a : PatchFixtures.boundaries(elf, f).subList(0, 3)) {
                r.insert(new Insertion(a, HELPER_CALL, "helper-call.s", BranchTarget.INSERTED));
                points++;
            }
        }
        Path out = PatchFixtures.write(tmp, "out", r.run().bytes());
        // The parameters never start where the code ends: BOLT reads a reference to that address as the
        // end of the last function, and moves it with the function (a counters file of garbage length).
        ElfFile output = ElfFile.read(out);
        assertTrue(output.section(SpliceRuntime.RODATA).orElseThrow().address()
                > output.section(NewSection.NAME).orElseThrow().endAddress());
        Path bolted = tmp.resolve("out.bolt");
        Tools.Result bolt = Tools.run(List.of(Tools.require("llvm-bolt-22"), out.toString(), "-o", bolted.toString(),
                "--reorder-blocks=ext-tsp"), null, 300).checked("llvm-bolt-22");
        assertFalse(bolt.stderr().contains("pcrel_hi") || bolt.stdout().contains("pcrel_hi"), bolt.stderr());
        PatchFixtures.assertSameRun(in, bolted, "200");
        long[] counts = FragmentTemplateTest.run(out, file, "200");
        long[] boltedCounts = FragmentTemplateTest.run(bolted, file, "200");
        assertEquals(points, counts.length);
        assertArrayEquals(counts, boltedCounts);
        assertTrue(java.util.Arrays.stream(counts).sum() > 200, java.util.Arrays.toString(counts));

        // A second patch of the output: the first runtime stays where it is and still counts; the second
        // pass brings its own, with its own counters and file.
        ElfFile first = ElfFile.read(out);
        Path second = tmp.resolve("counters2");
        Rewrite again = Rewrite.of(first).counterFile(second.toString());
        again.insert(new Insertion(first.function("main").orElseThrow().address(), HELPER_CALL, "helper-call.s",
                BranchTarget.INSERTED));
        Path twice = PatchFixtures.write(tmp, "twice", again.run().bytes());
        PatchFixtures.assertSameRun(in, twice, "200");
        assertArrayEquals(new long[] {1}, FragmentTemplateTest.run(twice, second, "200"));
        assertArrayEquals(counts, FragmentTemplateTest.run(twice, file, "200"));
    }
}
