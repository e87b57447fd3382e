package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.BranchSites;
import dev.splice.testing.ComputedGotoPie;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces across the indirect jumps of a computed goto (a table of label addresses in data, as in
 * interpreters such as Lua's luaV_execute): perf2bolt-22 follows them in static and position-dependent
 * builds, where the table's R_RISCV_64 relocations make the labels successors of every such jump
 * (strict mode), but not in a PIE, where the dynamic loader relocates the table (R_RISCV_RELATIVE):
 * there the trace gives no fall-through. Splice's translation equals perf2bolt's in all three. In
 * a PIE perf2bolt-22 still makes each label a block start (a secondary entry point, from the
 * R_RISCV_RELATIVE relocation), which shows where ordinary code runs into a label.
 */
class ComputedGotoTranslationTest {
    private static final String SOURCE = """
            #include <stdio.h>
            #include <stdlib.h>
            __attribute__((noinline)) long run(const unsigned char *code, long acc) {
                static void *const ops[] = {&&op_add, &&op_mul, &&op_sub, &&op_end};
                const unsigned char *pc = code;
                goto *ops[*pc++];
            op_add:
                acc += 3;
                goto *ops[*pc++];
            op_mul:
                acc *= 5;
                goto *ops[*pc++];
            op_sub:
                acc -= 7;
                goto *ops[*pc++];
            op_end:
                return acc;
            }
            int main(int argc, char **argv) {
                unsigned char code[64];
                int n = argc > 1 ? atoi(argv[1]) : 40;
                for (int i = 0; i < n && i < 63; i++) code[i] = (unsigned char)(i * 7 % 3);
                code[n < 63 ? n : 63] = 3;
                printf("%ld\\n", run(code, 1));
                return 0;
            }
            """;

    @TempDir Path tmp;

    @Test
    void tracesAcrossAComputedGotoAsPerf2bolt() throws IOException {
        Path source = tmp.resolve("cgoto.c");
        Files.writeString(source, SOURCE);
        for (String[] build : new String[][] {{"pie", "-fpie", "-pie"}, {"static", "-static"}, {"dyn", "-fno-pie", "-no-pie"}}) {
            Path binary = tmp.resolve("cgoto." + build[0]);
            List<String> gcc = new ArrayList<>(List.of(Tools.require("riscv64-linux-gnu-gcc"), "-O2", "-g0", "-Wl,--emit-relocs"));
            gcc.addAll(List.of(build).subList(1, build.length));
            gcc.addAll(List.of("-o", binary.toString(), source.toString()));
            Tools.run(gcc, "", 120).checked("gcc");
            String pa = tracesAcrossIndirectJumps(binary, 3);
            TreeSet<String> theirs = new TreeSet<>(nonEmpty(Files.readAllLines(
                    Perf2boltAgreementTest.perf2boltFile(binary, pa, "cgoto-" + build[0]))));
            Path in = tmp.resolve(build[0] + ".pa");
            Path out = tmp.resolve(build[0] + ".fdata");
            Files.writeString(in, pa);
            ProfileTranslation.translate(binary, in, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                    new ProfileTranslation.Options(false, false, null, null)).write(out, ProfileTranslation.OutputFormat.FDATA);
            TreeSet<String> ours = new TreeSet<>(nonEmpty(Files.readAllLines(out)));
            Perf2boltAgreementTest.assertSame(theirs, ours);
            boolean fallThroughs = theirs.stream().anyMatch(l -> l.startsWith("1 run "));
            assertEquals(!build[0].equals("pie"), fallThroughs, build[0] + ": " + theirs);
        }
    }

    /**
     * A PIE whose computed-goto label follows ordinary code: perf2bolt-22 makes the label a block
     * start (a secondary entry point, from its R_RISCV_RELATIVE relocation) even though the
     * indirect jumps have no successors, so a trace from the function's start across the label
     * gives a fall-through into it. Before Splice read relative relocations it gave none.
     */
    @Test
    void fallsThroughIntoALabelOfAPieAsPerf2bolt() throws IOException {
        for (boolean relocs : new boolean[] {true, false}) {
            String tag = relocs ? "pie-relocs" : "pie";
            Path binary = ComputedGotoPie.build(tmp, "cgoto-ft." + tag, relocs);
            ElfFile elf = ElfFile.read(binary);
            Function run = elf.function("run").orElseThrow();
            List<Long> afterOrdinaryCode = labelsAfterOrdinaryCode(binary, elf, run);
            assertFalse(afterOrdinaryCode.isEmpty(), tag + ": no label of run follows ordinary code; the test needs one");
            String pa = tracesAcrossIndirectJumps(binary, 2);
            TreeSet<String> theirs = new TreeSet<>(nonEmpty(Files.readAllLines(
                    Perf2boltAgreementTest.perf2boltFile(binary, pa, "cgoto-ft-" + tag))));
            Path in = tmp.resolve(tag + ".pa");
            Path out = tmp.resolve(tag + ".fdata");
            Files.writeString(in, pa);
            ProfileTranslation.translate(binary, in, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                    new ProfileTranslation.Options(false, false, null, null)).write(out, ProfileTranslation.OutputFormat.FDATA);
            TreeSet<String> ours = new TreeSet<>(nonEmpty(Files.readAllLines(out)));
            Perf2boltAgreementTest.assertSame(theirs, ours);
            // The case the test is for: perf2bolt counts a fall-through into such a label.
            List<String> into = afterOrdinaryCode.stream().map(l -> " 1 run " + Long.toHexString(l - run.address()) + " 0 ").toList();
            assertTrue(theirs.stream().anyMatch(line -> line.startsWith("1 run ") && into.stream().anyMatch(line::contains)),
                    tag + ": no fall-through into a label at " + afterOrdinaryCode + ": " + theirs);
        }
    }

    /**
     * The computed-goto labels of {@code run} (targets of R_RISCV_RELATIVE relocations inside it)
     * whose previous instruction is not a jump, a branch or a return.
     */
    private static List<Long> labelsAfterOrdinaryCode(Path binary, ElfFile elf, Function run) {
        TreeSet<Long> labels = new TreeSet<>();
        for (dev.splice.elf.RelocationSection rs : elf.relocations()) {
            for (dev.splice.elf.Relocation r : rs.relocations()) {
                if (rs.section().isAllocated() && r.type() == 3 && run.contains(r.addend()) && r.addend() != run.address()) {
                    labels.add(r.addend());
                }
            }
        }
        List<BranchSites.Instruction> code = BranchSites.of(binary).instructions().stream()
                .filter(i -> run.contains(i.address())).toList();
        List<Long> out = new ArrayList<>();
        for (int i = 1; i < code.size(); i++) {
            String before = code.get(i - 1).mnemonic();
            boolean transfer = before.matches("(c\\.)?[bj].*") || before.equals("ret");
            if (labels.contains(code.get(i).address()) && !transfer) {
                out.add(code.get(i).address());
            }
        }
        return out;
    }

    /** F records from each block start of {@code run} to each later indirect jump of it (at least {@code minJumps}). */
    private static String tracesAcrossIndirectJumps(Path binary, int minJumps) {
        Function run = ElfFile.read(binary).function("run").orElseThrow();
        List<BranchSites.Instruction> code = BranchSites.of(binary).instructions().stream()
                .filter(i -> run.contains(i.address())).toList();
        List<Long> starts = new ArrayList<>(List.of(run.address()));
        List<Long> jumps = new ArrayList<>();
        for (int i = 0; i < code.size(); i++) {
            String m = code.get(i).mnemonic();
            if (m.equals("jr") || m.equals("c.jr") || m.equals("ret")) {
                if (!m.equals("ret")) {
                    jumps.add(code.get(i).address());
                }
                if (i + 1 < code.size()) {
                    starts.add(code.get(i + 1).address());
                }
            }
        }
        assertTrue(jumps.size() >= minJumps, "indirect jumps of run: " + jumps);
        StringBuilder pa = new StringBuilder();
        for (long from : starts) {
            for (long to : jumps) {
                if (to > from) {
                    pa.append(String.format("F %x %x %d%n", from, to, 1 + (from + to) % 50));
                }
            }
        }
        assertFalse(pa.isEmpty());
        return pa.toString();
    }

    private static List<String> nonEmpty(List<String> lines) {
        return lines.stream().filter(l -> !l.isBlank()).toList();
    }
}
