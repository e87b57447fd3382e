package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Symbol;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jumps that cannot reach with {@code jal} once the new section outgrows 1 MiB: tail calls between
 * two moved functions go through t1, as tail calls to unmoved functions do (issue 17, point 4).
 */
class LongJumpTest {
    /** 4 KiB of code per entry: 1399 moved functions make .splice.text about 5.7 MiB. */
    private static final String BIG = "addi x0, x0, 0\n".repeat(1024);
    private static final Pattern FAR_TAIL_CALL = Pattern.compile(
            "auipc\\s+t1,0x[0-9a-f]+\\n\\s+[0-9a-f]+:\\s+[0-9a-f]+\\s+jalr\\s+zero,-?\\d+\\(t1\\) # ([0-9a-f]+) <__free>");

    @Test
    void tailCallsBetweenMovedFunctionsGoThroughT1(@TempDir Path dir) throws Exception {
        Path in = TestPrograms.rv64("exceptions.relocs");
        Rewrite.Result r = Rewrite.of(ElfFile.read(in)).insertAtEntries(BIG, "big.s", BranchTarget.INSERTED).run();
        List<Rewrite.Skipped> far = r.skipped().stream().filter(s -> s.reason() == Reason.OUT_OF_REACH).toList();
        assertEquals(List.of(), far, "no function is left in place for a jump out of reach");
        assertTrue(r.inserted().stream().anyMatch(e -> e.function().equals("__cxa_free_exception")));
        assertTrue(r.inserted().stream().anyMatch(e -> e.function().equals("__free")));
        Path out = PatchFixtures.write(dir, "big.out", r.bytes());
        // __cxa_free_exception ends in a tail call to __free (moved too, megabytes away): objdump sees auipc t1 + jalr zero.
        ElfFile o = ElfFile.read(out);
        Symbol caller = o.symbol("__cxa_free_exception").orElseThrow();
        Symbol callee = o.symbol("__free").orElseThrow();
        String code = Tools.run("riscv64-linux-gnu-objdump", "-d", "-M", "no-aliases",
                "--start-address=0x" + Long.toHexString(caller.value()),
                "--stop-address=0x" + Long.toHexString(caller.value() + caller.size()), out.toString())
                .checked("objdump -d").stdout();
        Matcher m = FAR_TAIL_CALL.matcher(code);
        assertTrue(m.find(), "no far tail call to __free in:\n" + code);
        assertEquals(callee.value(), Long.parseUnsignedLong(m.group(1), 16));
        assertTrue(Math.abs(callee.value() - caller.value()) > 1 << 20, "the tail call is beyond jal's reach");
        // The program throws and catches: __cxa_free_exception runs, and its tail call with it.
        PatchFixtures.assertSameRun(in, out);
    }

    /**
     * {@code _start} ends with {@code jal __libc_start_main; ebreak}: the jump back after the
     * breakpoint (if a debugger resumes) goes through t1, dead after the call, instead of refusing
     * with a message about the synthesized address after the ebreak (issue 17, point 6).
     */
    @Test
    void startFallsThroughAfterItsBreakpointThroughT1(@TempDir Path dir) throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        dev.splice.elf.Function start = elf.function("_start").orElseThrow();
        long call = start.endAddress() - 6; // jal __libc_start_main (4 bytes), then c.ebreak (2)
        Rewrite.Result r = Rewrite.of(elf).insert(new Insertion(call, "addi x0, x0, 0\n", "nop.s", BranchTarget.INSERTED)).run();
        Path out = PatchFixtures.write(dir, "start.out", r.bytes());
        Symbol moved = ElfFile.read(out).symbol("_start").orElseThrow();
        String code = Tools.run("riscv64-linux-gnu-objdump", "-d", "-M", "no-aliases",
                "--start-address=0x" + Long.toHexString(moved.value()),
                "--stop-address=0x" + Long.toHexString(moved.value() + moved.size() + 8), out.toString())
                .checked("objdump -d").stdout();
        Matcher m = Pattern.compile("c\\.ebreak\\s*\\n\\s+[0-9a-f]+:\\s+[0-9a-f]+\\s+auipc\\s+t1,0x[0-9a-f]+\\n"
                + "\\s+[0-9a-f]+:\\s+[0-9a-f]+\\s+jalr\\s+zero,-?\\d+\\(t1\\) # ([0-9a-f]+)").matcher(code);
        assertTrue(m.find(), "no jump back through t1 after the ebreak in:\n" + code);
        assertEquals(start.endAddress(), Long.parseUnsignedLong(m.group(1), 16), "the jump back goes where the ebreak fell through");
        PatchFixtures.assertSameRun(in, out);
    }
}
