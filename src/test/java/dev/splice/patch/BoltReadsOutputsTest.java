package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * llvm-bolt-22 and perf2bolt-22 read outputs that carry the runtime (issue 17). The moved function
 * ends in a call that does not return ({@code __stack_chk_fail}, {@code _ZSt9terminatev}), after
 * which the copy jumps back (auipc; jr) to the function that followed it in the input. That jump's
 * {@code R_RISCV_CALL} once named the section symbol {@code .text} plus an addend; BOLT takes such
 * a target from the auipc's upper 20 bits alone, so it read a reference up to 2 KiB off: on
 * {@code loops} in the middle of an instruction of another function, then both tools died of
 * SIGSEGV; on {@code cxx_work} it gave up on that function ("reference in the middle of
 * instruction"). Now the jump names the next function's symbol, and BOLT's output jumps there.
 */
class BoltReadsOutputsTest {
    private static final Pattern LAST_JUMP = Pattern.compile("\\s(?:j|jal\\s+zero,)\\s+0x[0-9a-f]+ <([^>+]+)>\\s*$");

    @TempDir Path tmp;

    @ParameterizedTest
    @CsvSource({"loops.relocs, __qsort_r, qsort, 60", "cxx_work.relocs, __cxa_throw, __cxa_rethrow, 5"})
    void boltAndPerf2boltReadAnOutputWithTheRuntime(String program, String function, String next, String arg)
            throws IOException {
        Path in = TestPrograms.rv64(program);
        ElfFile elf = ElfFile.read(in);
        Function f = elf.function(function).orElseThrow();
        Path out = PatchFixtures.write(tmp, "out", Rewrite.of(elf).counters(1).counterFile(tmp.resolve("c").toString())
                .insert(new Insertion(f.address(), "addi x0, x0, 0\n", "nop.s", BranchTarget.INSERTED)).run().bytes());

        Path bolted = tmp.resolve("out.bolt");
        Tools.Result bolt = Tools.run(List.of(Tools.require("llvm-bolt-22"), out.toString(), "-o", bolted.toString()), null, 300);
        assertEquals(0, bolt.exitCode(), "llvm-bolt-22: " + bolt.stderr());
        assertFalse((bolt.stdout() + bolt.stderr()).contains("reference in the middle of instruction"), bolt.stderr());
        // BOLT's copy of the function jumps back to the function that followed it, as the output does.
        List<String> code = Tools.run(Tools.require("llvm-objdump-22"), "-d", "--disassemble-symbols=" + function,
                bolted.toString()).checked("llvm-objdump-22").stdout().strip().lines()
                .filter(l -> !l.endsWith("\tnop")).toList(); // BOLT's alignment padding
        String lastLine = code.get(code.size() - 1);
        Matcher last = LAST_JUMP.matcher(lastLine);
        assertTrue(last.find() && last.group(1).equals(next), "the last instruction of " + function + ": " + lastLine);
        PatchFixtures.assertSameRun(in, bolted, arg);

        long main = ElfFile.read(out).function("main").orElseThrow().address();
        Path pa = tmp.resolve("out.pa");
        Files.writeString(pa, String.format("F %x %x 1%n", main, main + 4));
        Tools.Result perf2bolt = Tools.run(List.of(Tools.require("perf2bolt-22"), "-p", pa.toString(), "--pa", "-o",
                tmp.resolve("out.fdata").toString(), out.toString()), null, 300);
        assertEquals(0, perf2bolt.exitCode(), "perf2bolt-22: " + perf2bolt.stderr());
    }
}
