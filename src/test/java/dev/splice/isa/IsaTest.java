package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The public API's contracts that the peer tests do not cover. */
class IsaTest {
    private static final Isa ISA = Isa.rv64();

    @Test
    void targetStringsParseAndPrintCanonically() {
        Set<Extension> gc = Extension.parseTarget("rv64gc");
        assertEquals(EnumSet.of(Extension.I, Extension.M, Extension.A, Extension.F, Extension.D, Extension.C,
                Extension.ZICSR, Extension.ZIFENCEI), gc);
        assertEquals("rv64gc", Extension.targetName(gc));
        Set<Extension> more = Extension.parseTarget("RV64GC_zbb_zba_zicond");
        assertEquals("rv64gc_zicond_zba_zbb", Extension.targetName(more));
        assertEquals("rv64gc_zicbom_zicboz_zicond_zihintpause_zba_zbb_zbs", Extension.targetName(Extension.classic()));
        assertEquals(Extension.all(), Extension.parseTarget(Extension.targetName(Extension.all())));
        assertEquals("rv64imac", Extension.targetName(Extension.parseTarget("rv64imac")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Extension.parseTarget("rv64gc_zfoo"));
        assertTrue(e.getMessage().contains("zfoo"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Extension.parseTarget("rv32gc"));
        assertTrue(e.getMessage().contains("rv64"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Extension.parseTarget("rv64gxc"));
        assertTrue(e.getMessage().contains("'x'"), e.getMessage());
    }

    @Test
    void decoderOnlyKnowsEnabledExtensions() throws OperandException {
        Decoder gc = ISA.decoder(Extension.parseTarget("rv64gc"));
        Decoder noC = ISA.decoder(Extension.parseTarget("rv64g"));
        Decoder noD = ISA.decoder(Extension.parseTarget("rv64imafc"));
        int cAdd = Encoder.assemble(ISA.opcode("c.add"), "a0, a1", 0, SymbolResolver.NONE);
        int cFld = Encoder.assemble(ISA.opcode("c.fld"), "fa0, 8(a1)", 0, SymbolResolver.NONE);
        int czero = Encoder.assemble(ISA.opcode("czero.eqz"), "a0, a1, a2", 0, SymbolResolver.NONE);
        assertEquals("c.add", gc.decode(cAdd, 2).mnemonic());
        assertNull(noC.decode(cAdd, 2));
        assertEquals("c.fld", gc.decode(cFld, 2).mnemonic());
        assertNull(noD.decode(cFld, 2), "c.fld needs D");
        assertNull(gc.decode(czero, 4), "Zicond is not in rv64gc");
        assertEquals(EnumSet.of(Extension.C, Extension.D), ISA.opcode("c.fld").requires());
        assertEquals(Extension.C, ISA.opcode("c.fld").extension());
    }

    @Test
    void lengthEncoding() {
        assertEquals(2, Decoder.length(0x0001));
        assertEquals(4, Decoder.length(0x0013));
        assertEquals(6, Decoder.length(0x001f));
        assertEquals(8, Decoder.length(0x003f));
        assertEquals(-1, Decoder.length(0x007f));
        assertNull(ISA.decoder(Extension.all()).decode(0x0000001f, 4), "a 48-bit prefix is no 32-bit instruction");
    }

    @Test
    void opcodesByExactMnemonic() {
        assertNotNull(ISA.opcode("amoadd.w.aqrl"));
        assertNotNull(ISA.opcode("fence.tso"));
        assertNotNull(ISA.opcode("c.fsdsp"));
        assertNull(ISA.opcode("c.flw"), "c.flw is RV32-only");
        assertNull(ISA.opcode("mv"), "aliases are not opcodes");
        assertEquals(4, ISA.opcode("lr.d.aq").size());
        assertEquals(2, ISA.opcode("c.j").size());
    }

    @Test
    void branchTargets() throws OperandException {
        Opcode beq = ISA.opcode("beq");
        int bits = Encoder.assemble(beq, "a0, a1, 0xff0", 0x1000, SymbolResolver.NONE);
        assertTrue(beq.hasBranchTarget());
        assertEquals(-16, beq.branchOffset(bits));
        Opcode cj = ISA.opcode("c.j");
        int j = Encoder.assemble(cj, "target", 0x1000, name -> 0x1000 + 2046);
        assertEquals(2046, cj.branchOffset(j));
        assertFalse(ISA.opcode("auipc").hasBranchTarget());
        assertFalse(ISA.opcode("jalr").hasBranchTarget());
        for (String m : new String[] {"jal", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez"}) {
            assertTrue(ISA.opcode(m).hasBranchTarget(), m);
        }
    }

    @Test
    void printersAndNamers() throws OperandException {
        Opcode jal = ISA.opcode("jal");
        int bits = Encoder.encode(jal, 0, 0x100);
        StringBuilder sb = new StringBuilder();
        Printer.EXACT.print(jal, bits, 0x2000, sb, TargetNamer.ABSOLUTE);
        assertEquals("jal zero, 0x2100", sb.toString());
        sb.setLength(0);
        Printer.ALIASES.print(jal, bits, 0x2000, sb, (out, pc, target) -> out.append("L").append(target - pc));
        assertEquals("j L256", sb.toString());
        Opcode fadd = ISA.opcode("fadd.d");
        int f = Encoder.encode(fadd, 10, 11, 12);
        sb.setLength(0);
        Printer.EXACT.print(fadd, f, 0, sb, TargetNamer.ABSOLUTE);
        assertEquals("fadd.d fa0, fa1, fa2, dyn", sb.toString());
        sb.setLength(0);
        Printer.ALIASES.print(fadd, f, 0, sb, TargetNamer.ABSOLUTE);
        assertEquals("fadd.d fa0, fa1, fa2", sb.toString());
        Opcode csrrs = ISA.opcode("csrrs");
        sb.setLength(0);
        Printer.EXACT.print(csrrs, Encoder.assemble(csrrs, "a0, mhartid, zero", 0, null), 0, sb, TargetNamer.ABSOLUTE);
        assertEquals("csrrs a0, mhartid, zero", sb.toString());
    }

    @Test
    void badOperandsSayWhatAndWhere() {
        OperandException e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("addi"), "a0, a1, 2048", 0, SymbolResolver.NONE));
        assertEquals("addi: immediate 2048 out of range [-2048, 2047]", e.getMessage());
        assertEquals(8, e.column());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("c.ldsp"), "a0, 12(sp)", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("multiple of 8"), e.getMessage());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("c.lw"), "t0, 0(a0)", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("x8-x15"), e.getMessage());
        assertEquals(0, e.column());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("c.addi4spn"), "a0, sp, 0", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("reserved"), e.getMessage());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("fadd.d"), "fa0, fa1, fa2, foo", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("rounding mode"), e.getMessage());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("beq"), "a0, a1, nowhere", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("nowhere"), e.getMessage());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("beq"), "a0, a1, 0x1001", 0x1000, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("multiple of 2"), e.getMessage());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("add"), "a0, a1", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("expected ','"), e.getMessage());
        e = assertThrows(OperandException.class,
                () -> Encoder.assemble(ISA.opcode("add"), "a0, a1, a2, a3", 0, SymbolResolver.NONE));
        assertTrue(e.getMessage().contains("unexpected"), e.getMessage());
        e = assertThrows(OperandException.class, () -> Encoder.encode(ISA.opcode("add"), 1, 2));
        assertTrue(e.getMessage().contains("3 operands"), e.getMessage());
    }

    @Test
    void whatPeopleTypeIsAccepted() throws OperandException {
        Opcode addi = ISA.opcode("addi");
        int want = Encoder.encode(addi, 10, 8, -1);
        assertEquals(want, Encoder.assemble(addi, "x10,fp,-0x1", 0, null));
        assertEquals(want, Encoder.assemble(addi, " a0 , s0 , -1 ", 0, null));
        Opcode ld = ISA.opcode("ld");
        assertEquals(Encoder.encode(ld, 10, 0, 11), Encoder.assemble(ld, "a0, (a1)", 0, null));
        Opcode fence = ISA.opcode("fence");
        assertEquals(0x0ff0000f, Encoder.assemble(fence, "iorw, iorw", 0, null));
        Opcode fmadd = ISA.opcode("fmadd.d");
        assertEquals(Encoder.encode(fmadd, 1, 2, 3, 4, 7), Encoder.assemble(fmadd, "ft1, ft2, ft3, ft4", 0, null));
        Opcode csrrw = ISA.opcode("csrrw");
        assertEquals(Encoder.assemble(csrrw, "zero, 0x300, a0", 0, null), Encoder.assemble(csrrw, "x0, mstatus, a0", 0, null));
        Opcode cnop = ISA.opcode("c.nop");
        assertEquals(0x0001, Encoder.assemble(cnop, "", 0, null));
        assertEquals(0x0015, Encoder.assemble(cnop, "5", 0, null));
    }
}
