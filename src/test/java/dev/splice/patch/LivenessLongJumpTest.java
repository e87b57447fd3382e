package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long jumps and conditional branches inside a moved function that no longer reach (a fragment of
 * more than 1 MiB in the middle of {@code main}) go through a caller-saved register that register
 * liveness proves dead there ({@code Layout}): before, such a function was refused as
 * {@code OUT_OF_REACH}. The output runs as the input under QEMU, and GNU objdump shows the far
 * forms ({@code auipc r; jr r}) in the copy.
 */
class LivenessLongJumpTest {
    /** 1.16 MB of code: more than a conditional branch over a jal (1 MiB) reaches. */
    private static final String HUGE = "nop\n".repeat(290_000);

    @TempDir Path tmp;

    @Test
    void branchesAcrossAHugeFragmentUseARegisterLivenessProvesDead() throws Exception {
        Path in = TestPrograms.rv64("exceptions.relocs");
        ElfFile elf = ElfFile.read(in);
        Function main = elf.function("main").orElseThrow();
        Rewrite rewrite = Rewrite.of(elf);
        List<Long> points = rewrite.insertionPoints(main);
        long middle = points.get(points.size() / 2);
        Path out = PatchFixtures.write(tmp, "huge", rewrite.insert(new Insertion(middle, HUGE, "huge.s", BranchTarget.INSERTED))
                .run().bytes());
        PatchFixtures.assertSameRun(in, out);
        Function copy = ElfFile.read(out).function("main").orElseThrow();
        String dump = Tools.run("riscv64-linux-gnu-objdump", "-d", "--no-show-raw-insn", "--start-address=0x"
                + Long.toHexString(copy.address()), "--stop-address=0x" + Long.toHexString(copy.address() + 0x2000),
                out.toString()).stdout();
        Matcher far = Pattern.compile("auipc\\s+(\\w+),.*\\n\\s*[0-9a-f]+:\\s+jr\\s+-?\\d+\\((\\w+)\\)").matcher(dump);
        int farForms = 0;
        while (far.find()) {
            if (far.group(1).equals(far.group(2)) && !far.group(1).equals("ra")) {
                farForms++;
            }
        }
        assertTrue(farForms >= 2, "far jumps in main's copy before the fragment: " + farForms);
    }
}
