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
            for (long a : Inserter.insertionPoints(elf, f)) {
                ins.add(new Insertion(a, "addi x0, x0, 0\n", BranchTarget.INSERTED));
            }
        }
        Path out = PatchFixtures.write(tmp, "loops.nops", Inserter.insert(elf, ins));
        java.nio.file.Files.copy(out, Path.of("/tmp/loops.nops"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        PatchFixtures.assertSameRun(in, out);
    }
}
