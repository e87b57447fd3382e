package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Each kind of error names file:line:column; the column points at what is wrong. */
class ErrorTest {
    /** Assembles and expects an error at the 1-based line/column where {@code marker} occurs. */
    private static ListingException fails(String text, int line, String marker, String messagePart) {
        ListingException e = assertThrows(ListingException.class, () -> Assembler.assemble(text, "bad.s"));
        String lineText = text.split("\n", -1)[line - 1];
        int column = lineText.indexOf(marker) + 1;
        assertTrue(column > 0, "marker '" + marker + "' not on line " + line);
        assertEquals("bad.s", e.file());
        assertEquals(line, e.line(), e.getMessage());
        assertEquals(column, e.column(), e.getMessage());
        assertTrue(e.getMessage().startsWith("bad.s:" + line + ":" + column + ": "), e.getMessage());
        assertTrue(e.reason().toLowerCase().contains(messagePart.toLowerCase()), e.getMessage());
        return e;
    }

    private static ListingException failsOnLine(String text, int line, String messagePart) {
        ListingException e = assertThrows(ListingException.class, () -> Assembler.assemble(text, "bad.s"));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.column() >= 1, e.getMessage());
        assertTrue(e.reason().toLowerCase().contains(messagePart.toLowerCase()), e.getMessage());
        return e;
    }

    @Test
    void unknownMnemonic() {
        fails(".target rv64gc\n        addi a0, a0, 1\n        frobnicate a0, a1\n", 3, "frobnicate", "unknown mnemonic");
    }

    @Test
    void unknownDirective() {
        fails("  .frobnicate 1\n", 1, ".frobnicate", "unknown directive");
    }

    @Test
    void badOperand() {
        ListingException e = failsOnLine("addi a0, q7, 1\n", 1, "");
        assertTrue(e.column() >= "addi a0, ".length() + 1 && e.column() <= "addi a0, q7".length() + 1, e.getMessage());
        ListingException pseudo = failsOnLine("mv a0, q7\n", 1, "");
        assertTrue(pseudo.column() >= "mv a0, ".length() + 1, pseudo.getMessage());
        fails("mv a0\n", 1, "mv", "operand");
        fails("li a0, banana\n", 1, "banana", "not a number");
    }

    @Test
    void immediateOutOfRangeIsNeverTruncated() {
        ListingException e = failsOnLine("addi a0, a0, 4096\n", 1, "");
        assertTrue(e.column() >= "addi a0, a0, ".length() + 1, e.getMessage());
        failsOnLine("slli a0, a0, 64\n", 1, "");
        fails("li a0, 0x10000000000000000\n", 1, "0x1", "64 bits");
        fails(".byte 256\n", 1, "256", "does not fit");
        fails(".half 1, -32769\n", 1, "-32769", "does not fit");
        fails(".word 0x100000000\n", 1, "0x1", "does not fit");
        fails(".insn 2, 0x10001\n", 1, "0x1", "");
    }

    @Test
    void misalignedOrOutOfRangeBranch() {
        failsOnLine(".origin 0x1000\n  beq a0, a1, 0x1003\n", 2, "");
        failsOnLine(".origin 0x1000\n  beq a0, a1, 0x3000\n", 2, "");
        failsOnLine(".origin 0x1000\n  jal ra, 0x200000\n", 2, "");
        failsOnLine(".origin 0x1000\n  c.j 0x2000\n", 2, "");
        fails(".origin 0x1000\n  call 0x100001000\n", 2, "0x1000", "range");
    }

    @Test
    void undefinedLabel() {
        fails("  j nowhere\n", 1, "nowhere", "undefined label 'nowhere'");
        fails("1:\n  bnez a0, 1f\n", 2, "1f", "undefined label");
        fails("  call missing\n", 1, "missing", "undefined label");
    }

    @Test
    void duplicateLabel() {
        fails("here:\n  nop\n  here:  nop\n", 3, "here", "duplicate label 'here'");
    }

    @Test
    void targetMismatch() {
        fails(".target rv64gc\n  andn a0, a1, a2\n", 2, "andn", "zbb");
        fails(".target rv64gc\n.option norvc\n  c.addi a0, 1\n", 3, "c.addi", "norvc");
        fails(".target rv64g\n  c.addi a0, 1\n", 2, "c.addi", "not in .target");
        fails(".target rv64imac\n  fmv.d fa0, fa1\n", 2, "fmv.d", "not in .target");
        fails(".target rv99\n", 1, "rv99", ".target");
    }

    @Test
    void labelsAndNumbersAreResolvedAcrossLines() {
        // Not an error: a sanity check that the positive path of the same constructs assembles.
        Assembly a = Assembler.assemble(".origin 0x100\nstart: j end\n1: nop\nend: bnez a0, 1b\n", "ok.s");
        assertEquals(0x100, a.labels().get("start"));
        assertEquals(0x108, a.labels().get("end"));
        assertEquals(12, a.bytes().length);
    }
}
