package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Directives and pseudo-instructions against GNU as: the same source assembled by Splice and by
 * riscv64-linux-gnu-as (without relaxation, linked at the same address) gives the same bytes.
 */
class AssemblerGnuAsTest {
    private static final long BASE = 0x10000;

    @TempDir
    Path dir;

    private byte[] gnu(String source) throws IOException {
        Path s = dir.resolve("t.s");
        Path o = dir.resolve("t.o");
        Path x = dir.resolve("t");
        Path bin = dir.resolve("t.bin");
        Files.writeString(s, source);
        Tools.run("riscv64-linux-gnu-as", "-march=rv64gc", "-mno-relax", "-o", o.toString(), s.toString()).checked("as");
        Tools.run("riscv64-linux-gnu-ld", "--no-relax", "-Ttext=0x" + Long.toHexString(BASE), "-e", "0x" + Long.toHexString(BASE),
                "-o", x.toString(), o.toString()).checked("ld");
        Tools.run("riscv64-linux-gnu-objcopy", "-O", "binary", "-j", ".text", x.toString(), bin.toString()).checked("objcopy");
        return Files.readAllBytes(bin);
    }

    private void assertSameAsGnu(String source) throws IOException {
        byte[] expected = gnu(source);
        byte[] actual = Assembler.assemble(source, "t.s", BASE, java.util.Map.of()).bytes();
        HexFormat hex = HexFormat.of();
        if (!java.util.Arrays.equals(expected, actual)) {
            // Report the first differing 4-byte word with its source line for a readable failure.
            assertEquals(dump(expected), dump(actual), "GNU as (expected) vs Splice for:\n" + source);
        }
        assertEquals(hex.formatHex(expected), hex.formatHex(actual));
    }

    private static String dump(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bytes.length; i += 4) {
            sb.append(String.format("%04x:", i));
            for (int j = i; j < Math.min(i + 4, bytes.length); j++) {
                sb.append(String.format(" %02x", bytes[j]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Test
    void loadImmediateMatchesGnuAsForBoundaryAndRandomConstants() throws IOException {
        List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, 2047L, -2048L, 2048L, -2049L, 4095L, 4096L,
                0x7ffL, 0x800L, 0xfffL, 0x1000L, 0x7ffff800L, 0x7fffffffL, -0x80000000L, 0x80000000L, 0xffffffffL,
                0x100000000L, 0x7fffffffffffffffL, Long.MIN_VALUE, 0x8000000000000001L, 0x123456789abcdef0L,
                0xfffffffffffff800L, 0x00000000fffff800L, 0x0000000080000800L, 0x7ffffffffffff800L));
        Random random = new Random(42);
        for (int i = 0; i < 300; i++) {
            long v = random.nextLong();
            switch (i % 5) {
                case 0 -> v >>= random.nextInt(64); // narrower values, sign-extended
                case 1 -> v &= random.nextLong() & random.nextLong(); // sparse bits
                case 2 -> v = (long) (int) v;
                case 3 -> v = v << random.nextInt(64);
                default -> { }
            }
            values.add(v);
        }
        StringBuilder source = new StringBuilder(".option norvc\n");
        String[] registers = {"a0", "t0", "s11", "x31", "ra"};
        for (int i = 0; i < values.size(); i++) {
            // Some in hex (unsigned form), some in signed decimal.
            String literal = i % 2 == 0 ? "0x" + Long.toHexString(values.get(i)) : Long.toString(values.get(i));
            source.append("li ").append(registers[i % registers.length]).append(", ").append(literal).append('\n');
        }
        assertSameAsGnu(source.toString());
    }

    @Test
    void pseudoInstructionsMatchGnuAs() throws IOException {
        assertSameAsGnu("""
                .option norvc
                start:
                        nop
                        mv a0, a1
                        not t0, t1
                        neg a2, a3
                        negw a4, a5
                        sext.w s0, s1
                        seqz a0, a1
                        snez a0, a1
                        sltz a0, a1
                        sgtz a0, a1
                1:      beqz a0, 1f
                        bnez a1, 1b
                        blez a2, start
                        bgez a3, end
                        bltz a4, 1b
                        bgtz a5, 1f
                        bgt a0, a1, 1f
                        ble a0, a1, 1b
                        bgtu t0, t1, end
                        bleu t0, t1, start
                1:      j 1b
                        j end
                        jal end
                        jal ra, end
                        jr a0
                        jalr t0
                        ret
                        call func
                        tail func
                        la a0, data
                        lla a1, start
                        fmv.s fa0, fa1
                        fmv.d fs0, fs1
                        fneg.s ft0, ft1
                        fneg.d ft2, ft3
                        fabs.s fa2, fa3
                        fabs.d fa4, fa5
                        csrr a0, fcsr
                        csrw fflags, a1
                        csrs frm, a2
                        csrc fcsr, a3
                        csrwi fcsr, 5
                        csrsi fflags, 1
                        csrci frm, 2
                        rdcycle a0
                        rdtime a1
                        rdinstret a2
                        frcsr t0
                        fscsr t1
                        fence
                        fence rw, w
                        fence.i
                func:   ret
                end:    addi a0, a0, 1
                data:   .word 0x12345678
                """);
    }

    @Test
    void directivesMatchGnuAs() throws IOException {
        assertSameAsGnu("""
                .option norvc
                        addi a0, a0, 1
                        .byte 1, 2, 0xff, -1
                        .balign 4, 0
                        .half 0x1234, -2
                        .2byte 7
                        .word 0xdeadbeef, -5
                        .4byte 9
                        .dword 0x0123456789abcdef, -1
                        .8byte 3
                        .align 4
                        addi a1, a1, 2
                        .balign 16
                        .p2align 3
                        .insn 4, 0x00000013
                        .byte 7
                        .balign 8, 0xaa
                        .zero 5
                        .balign 4, 0
                .option rvc
                        .insn 2, 0x0001
                        c.addi a0, 1
                        c.nop
                        c.j 1f
                        c.beqz a0, 1f
                        c.li a5, -3
                        .insn 2, 0x4505
                1:      c.jr ra
                .option norvc
                        .balign 8
                        .skip 3, 0x5a
                        .balign 16
                """);
    }
}
