package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InsertSmokeTest {
    @TempDir Path tmp;

    @Test
    void nopAtEveryInstructionOfLoopsFunctions() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        List<Insertion> ins = new ArrayList<>();
        for (String name : List.of("hot_loop", "classify", "fib", "apply_all", "main")) {
            Function f = elf.function(name).orElseThrow();
            for (long a : Rewrite.of(elf).insertionPoints(f)) {
                ins.add(new Insertion(a, "addi x0, x0, 0\n", BranchTarget.INSERTED));
            }
        }
        Path out = PatchFixtures.write(tmp, "loops.nops", Inserter.insert(elf, ins));
        PatchFixtures.assertSameRun(in, out);
    }
}
