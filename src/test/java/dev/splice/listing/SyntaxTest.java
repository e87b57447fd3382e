package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 14's bugs and the refusals of the new syntax (the accepted forms are in SyntaxPeerTest). */
class SyntaxTest {
    private static String error(String text) {
        return assertThrows(ListingException.class, () -> Assembler.assemble(text, "s.s", 0x1000L, Map.of("ext", 0x2000L)))
                .getMessage();
    }

    private static String hex(String text) {
        return HexFormat.of().formatHex(Assembler.assemble(text, "s.s", 0x1000L, Map.of()).bytes());
    }

    @Test
    void explicitZeroImmediateOfCNopIsRefusedAsBothPeersDo() {
        assertEquals("s.s:1:7: c.nop: an explicit immediate must not be 0 (write c.nop)", error("c.nop 0\n"));
        assertEquals("0100", hex("c.nop\n"));
        assertEquals("1500", hex("c.nop 5\n"), "a HINT with an immediate stays accepted");
    }

    @Test
    void dotRelativeTargetsAssemble() {
        assertEquals(hex("beq a0, a1, 0x1008\n"), hex("beq a0, a1, .+8\n"));
        assertEquals(hex("jal ra, 0xffc\n"), hex("jal ra, .-4\n"));
    }

    @Test
    void unimpAndJalrReadAsBothObjdumpsOnlyInTheReadableListing() {
        Region r = Region.raw(0x1000, HexFormat.of().parseHex("73100 0c0678b0b00".replace(" ", "")));
        String exact = new ListingWriter().toText(List.of(r));
        assertTrue(exact.contains("csrrw zero, cycle, zero ") && exact.contains("jalr s6, 0(s7) "), exact);
        String readable = new ListingWriter(true, new SymbolMap(List.of())).toText(List.of(r));
        assertTrue(readable.contains("        unimp ") && readable.contains("        jalr s6, s7 "), readable);
    }

    @Test
    void newSyntaxFailsWithFileLineAndColumn() {
        assertEquals("s.s:1:5: 'c.j' cannot be sure to reach an external name (c.* instructions stay exact); write the 32-bit form",
                error("c.j ext\n"));
        assertEquals("s.s:2:24: %pcrel_lo(1b) must name the label of an auipc with %pcrel_hi in this region",
                error("1: nop\naddi a0, a0, %pcrel_lo(1b)\n"));
        assertEquals("s.s:1:14: %hi belongs on lui, not on addi", error("addi a0, a0, %hi(5)\n"));
        assertTrue(error("addi a0, a0, (1 + 2\n").startsWith("s.s:1:20: missing ')' in '(1 + 2'"), error("addi a0, a0, (1 + 2\n"));
        assertEquals("s.s:1:16: division by zero in '4 / 0'", error("addi a0, a0, 4 / 0\n"));
        assertEquals("s.s:1:14: addi: 'ext' is not a number", error("addi a0, a0, ext\n"));
        assertEquals("s.s:1:7: 'ext' is an address: .byte takes constants", error(".byte ext\n"));
        assertTrue(error(".equ 9x, 1\n").contains("bad name '9x' for .equ"));
        assertTrue(error(".option arch, +zzz\n").startsWith("s.s:1:15: bad .option arch '+zzz'"), error(".option arch, +zzz\n"));
        assertTrue(error("li a0, nowhere\n").contains("'nowhere' is not a number"));
    }

    @Test
    void optionArchChangesTheTargetAndPushPopRestoresIt() {
        String text = ".option push\n.option arch, +zbb\nandn a0, a1, a2\n.option pop\nandn a0, a1, a2\n";
        assertTrue(error(text).startsWith("s.s:5:1: 'andn' needs extension zbb"), error(text));
        assertEquals(hex(".option arch, +zbb\nandn a0, a1, a2\n"), hex(".option arch, rv64gc_zbb\nandn a0, a1, a2\n"));
        assertTrue(error(".option arch, -c\nc.nop\n").contains("c.nop"), "removing c removes compressed instructions");
    }
}
