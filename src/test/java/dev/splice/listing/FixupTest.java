package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fixups: a fragment assembled once with placeholder values and relocated gives exactly the bytes
 * of assembling it at the final place (checked at many random placements), and the bytes GNU as
 * and llvm-mc-22 give with the names defined at link time.
 */
class FixupTest {
    /** Every form that references an external name or an absolute address, plus internal branches. */
    private static final String FRAGMENT = String.join("\n",
            ".option norvc",
            "start:",
            "        call far",
            "        tail far",
            "        la t0, far+8",
            "        lla a1, far-12",
            "        jal near",
            "        jal ra, near+4",
            "        j near",
            "        beq a0, a1, near",
            "        bltu a2, a3, near-8",
            "        beqz a0, near",
            "        bgt a0, a1, near+2",
            "1:      addi a0, a0, 1",
            "        bne a0, a1, 1b",
            "        beq a0, a1, .+8",
            "        bnez a0, start",
            "        jal ra, start",
            "        call start",
            "        la a2, end",
            "        lui a3, %hi(low)",
            "        addi a3, a3, %lo(low)",
            "        sw a3, %lo(low+4)(a4)",
            "3:      auipc a5, %pcrel_hi(far+12)",
            "        ld a5, %pcrel_lo(3b)(a5)",
            "        sd a5, %pcrel_lo(3b)(a5)",
            "4:      auipc a6, %pcrel_hi(end)",
            "        addi a6, a6, %pcrel_lo(4b)",
            "        .dword far+3, start, end - start",
            "        .word low, near - 0x10",
            "end:    ret",
            "");

    /** The same with absolute addresses, which Splice also accepts in pc-relative forms. */
    private static final String ABSOLUTES = FRAGMENT + String.join("\n",
            "        call 0x12345678",
            "        tail far+16",
            "        tail 0x20000000",
            "        la a0, 0x40000000",
            "        lla a0, 0x7ffff000",
            "");

    @TempDir
    Path dir;

    @Test
    void relocatedBytesAreTheBytesOfAssemblingAtTheFinalPlace() {
        Map<String, Long> placeholders = Map.of("far", 0x1000L, "near", 0x1000L, "low", 0x1000L);
        Assembly once = Assembler.assemble(ABSOLUTES, "f.s", 0x1000L, placeholders);
        Random random = new Random(14);
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < 5000; i++) {
            long address = 0x10000 + 2L * random.nextInt(0x3ff00000);
            Map<String, Long> symbols = symbolsNear(random, address, 2);
            byte[] expected = Assembler.assemble(ABSOLUTES, "f.s", address, symbols).bytes();
            assertEquals(hex.formatHex(expected), hex.formatHex(once.relocate(address, symbols)),
                    "at 0x" + Long.toHexString(address) + " with " + symbols);
        }
    }

    @Test
    void relocationAgreesWithGnuAsAndLlvmMc() throws IOException {
        Assembly once = Assembler.assemble(FRAGMENT, "f.s", 0L, Map.of("far", 0L, "near", 0L, "low", 0L));
        Random random = new Random(16);
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < 6; i++) {
            long address = 0x10000 + 4L * random.nextInt(0x1f000000);
            Map<String, Long> symbols = symbolsNear(random, address, 4);
            String actual = hex.formatHex(once.relocate(address, symbols));
            assertEquals(hex.formatHex(peer(false, address, symbols)), actual, "GNU as at 0x" + Long.toHexString(address) + " " + symbols);
            assertEquals(hex.formatHex(peer(true, address, symbols)), actual, "llvm-mc at 0x" + Long.toHexString(address) + " " + symbols);
        }
    }

    /** "far" within +-1.5 GiB, "near" within +-0.9 MiB of the address (multiples of {@code align}). */
    private static Map<String, Long> symbolsNear(Random random, long address, int align) {
        Map<String, Long> symbols = new HashMap<>();
        symbols.put("far", address + align * (long) (random.nextInt(0x60000000 / align * 2) - 0x60000000 / align));
        symbols.put("near", address + align * (long) (random.nextInt(0xe0000 / align * 2) - 0xe0000 / align));
        symbols.put("low", align * (long) (0x1000 / align + random.nextInt(0x7ff00000 / align)));
        return symbols;
    }

    /** The fragment's bytes by GNU as or llvm-mc-22 (no relaxation), linked at {@code address} with the names defined. */
    private byte[] peer(boolean llvm, long address, Map<String, Long> symbols) throws IOException {
        Path s = dir.resolve("t.s");
        Path o = dir.resolve("t.o");
        Path x = dir.resolve("t");
        Path bin = dir.resolve("t.bin");
        Files.writeString(s, FRAGMENT);
        if (llvm) {
            Tools.run("llvm-mc-22", "-triple=riscv64", "-mattr=+m,+a,+f,+d,+c,-relax", "-filetype=obj", "-o", o.toString(),
                    s.toString()).checked("llvm-mc");
        } else {
            Tools.run("riscv64-linux-gnu-as", "-march=rv64gc", "-mno-relax", "-o", o.toString(), s.toString()).checked("as");
        }
        List<String> ld = new java.util.ArrayList<>(List.of("riscv64-linux-gnu-ld", "--no-relax",
                "-Ttext=0x" + Long.toHexString(address), "-e", "0x" + Long.toHexString(address), "-o", x.toString()));
        symbols.forEach((name, value) -> ld.add("--defsym=" + name + "=0x" + Long.toHexString(value)));
        ld.add(o.toString());
        Tools.run(ld, null, 60).checked("ld");
        Tools.run("riscv64-linux-gnu-objcopy", "-O", "binary", "-j", ".text", x.toString(), bin.toString()).checked("objcopy");
        return Files.readAllBytes(bin);
    }

    @Test
    void fixupsNameTheirKindSymbolAndAddend() {
        Assembly a = Assembler.assemble("call f\nla t0, g+8\nbeqz a0, f\nj 0x2000\nsw a0, 0(a1)\n", "k.s", 0x1000L,
                Map.of("f", 0x5000L, "g", 0x6000L));
        assertEquals(List.of(
                new Fixup(0, 0, Fixup.Kind.CALL, "f", 0, 0, 1, 6),
                new Fixup(0, 8, Fixup.Kind.PCREL_HI20, "g", 8, 8, 2, 8),
                new Fixup(0, 12, Fixup.Kind.PCREL_LO12_I, "g", 8, 8, 2, 8),
                new Fixup(0, 20, Fixup.Kind.JAL, "f", 0, 20, 3, 10),
                new Fixup(0, 24, Fixup.Kind.JAL, null, 0x2000, 24, 4, 3)), a.fixups());
    }

    @Test
    void relocationRefusesValuesOutOfRangeAndMissingNames() {
        Assembly a = Assembler.assemble("nop\njal ra, f\n", "r.s", 0x1000L, Map.of("f", 0x2000L));
        ListingException far = assertThrows(ListingException.class, () -> a.relocate(0x1000, Map.of("f", 0x200000L)));
        assertEquals("r.s:2:9: target 0x200000 is out of the +-1048576-byte range from 0x1004", far.getMessage());
        ListingException missing = assertThrows(ListingException.class, () -> a.relocate(0x1000, Map.of()));
        assertEquals("r.s:2:9: no value for external name 'f'", missing.getMessage());
        ListingException rvc = assertThrows(ListingException.class,
                () -> Assembler.assemble("c.j f\n", "c.s", 0L, Map.of("f", 0x10L)));
        assertTrue(rvc.getMessage().startsWith("c.s:1:5: 'c.j' cannot be sure to reach an external name"), rvc.getMessage());
    }

    @Test
    void writtenRegistersAreTheDestinationsOfTheInstructions() {
        Assembly a = Assembler.assemble(String.join("\n", "addi a0, a1, 1", "sd a2, 0(sp)", "fadd.s fa0, fa1, fa2",
                "c.jalr a0", "lw t3, 0(a0)", "c.addi16sp sp, 16", "beq a4, a5, .+8", "call f", "csrr s1, fcsr",
                "fcvt.w.s t4, fa0", ".insn 4, 0x00000593", ""), "w.s", 0L, Map.of("f", 0L));
        // a0, ra (c.jal, call), t3, sp, s1, t4, a1 (.insn: addi a1, zero, 0)
        assertEquals(Set.of(10, 1, 28, 2, 9, 29, 11), a.writtenRegisters());
        assertEquals(Set.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                26, 27, 28, 29, 30, 31), Assembler.assemble(".insn 4, 0x0000007b\n", "u.s").writtenRegisters(),
                "a word Splice does not decode may write anything");
    }

    @Test
    void relocationIsFastEnoughForHundredsOfThousandsOfPoints() {
        Assembly once = Assembler.assemble(FRAGMENT, "f.s", 0L, Map.of("far", 0L, "near", 0L, "low", 0L));
        byte[] out = new byte[once.bytes().length];
        Map<String, Long> symbols = new HashMap<>(Map.of("far", 0x40000000L, "near", 0x100000L, "low", 0x1234L));
        long start = System.nanoTime();
        for (int i = 0; i < 200_000; i++) {
            once.relocateInto(out, 0, 0x100000 + 2L * i, symbols);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        // 18 fixups per placement; generous bound for a loaded machine (about 0.1 s when quiet).
        assertTrue(seconds < 5, "200,000 placements took " + seconds + " s");
    }
}
