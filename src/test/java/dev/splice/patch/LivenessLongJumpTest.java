package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    /**
     * libstdc++'s demangler function {@code d_type} ends with {@code sw zero, 0(zero); ebreak} and so
     * may fall into the function after it; its copy's jump back is out of a jal's reach and follows
     * no call, so it goes through a caller-saved register that liveness proves dead at the entry of
     * that function (before, bulk mode and patterns skipped such functions up front, and an explicit
     * insertion was refused as {@code OUT_OF_REACH}). The copy ends with {@code auipc r; jr r} to the
     * old end, r not ra; bulk mode moves d_type too; the outputs run as the input.
     */
    @Test
    void aFunctionThatFallsIntoTheNextJumpsBackThroughARegisterDeadThere() throws Exception {
        Path in = TestPrograms.rv64("exceptions.relocs");
        ElfFile elf = ElfFile.read(in);
        Function dType = elf.function("d_type").orElseThrow();
        Rewrite rewrite = Rewrite.of(elf);
        for (long a : rewrite.insertionPoints(dType)) {
            rewrite.insert(new Insertion(a, "nop\n", "nop.s", BranchTarget.INSERTED));
        }
        Rewrite.Result result = rewrite.run();
        Path out = PatchFixtures.write(tmp, "d_type", result.bytes());
        PatchFixtures.assertSameRun(in, out);
        ElfFile output = ElfFile.read(out);
        Function copy = output.function("d_type").orElseThrow();
        assertEquals(NewSection.NAME, copy.section().name());
        byte[] b = result.bytes();
        long jump = copy.endAddress() - 8;
        int at = (int) (copy.section().offset() + jump - copy.section().address());
        int auipc = dev.splice.base.Le.u32(b, at);
        int jr = dev.splice.base.Le.u32(b, at + 4);
        int r = auipc >>> 7 & 31;
        assertEquals(0x17, auipc & 0x7f, "auipc");
        assertEquals(0x67, jr & 0x707f, "jalr");
        assertEquals(0, jr >>> 7 & 31, "jr: no link");
        assertEquals(r, jr >>> 15 & 31, "jr through the auipc's register");
        assertTrue(r != 1 && java.util.Arrays.stream(FunctionLiveness.SCRATCH_CANDIDATES).anyMatch(c -> c == r), "x" + r + " is caller-saved");
        assertEquals(dType.endAddress(), jump + (auipc & 0xfffff000) + (jr >> 20), "the jump back goes to the code after d_type");
        Rewrite.Result bulk = Rewrite.of(elf).insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run();
        assertTrue(bulk.inserted().stream().anyMatch(e -> e.function().equals("d_type")), "bulk mode moves d_type");
        PatchFixtures.assertSameRun(in, PatchFixtures.write(tmp, "entries", bulk.bytes()));
    }
}
