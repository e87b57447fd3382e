package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.BranchSites;
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
 * there the trace gives no fall-through. Splice's translation equals perf2bolt's in all three.
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
            String pa = tracesAcrossIndirectJumps(binary);
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

    /** F records from each block start of {@code run} to each later indirect jump of it. */
    private static String tracesAcrossIndirectJumps(Path binary) {
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
        assertTrue(jumps.size() >= 3, "indirect jumps of run: " + jumps);
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
