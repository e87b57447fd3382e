package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Operand values by position, by role and by field, for every row of the table: against the exact
 * printer's text (which {@link LlvmDecodeTest} checks against llvm-objdump), against the base
 * formats' bit positions written out by hand, and for compressed instructions against the 32-bit
 * instruction the encoder expands them to.
 */
class OperandsTest {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());
    private static final TargetNamer OFFSET = (out, pc, target) -> out.append(target - pc);
    private static final int WORDS_PER_ROW = 400;

    /** Random valid words of every row (its fixed bits, random operand bits, decoding to it). */
    private static List<int[]> samples() {
        SplittableRandom random = new SplittableRandom(11);
        List<int[]> out = new ArrayList<>();
        for (Opcode op : ISA.opcodes()) {
            int found = 0;
            for (int i = 0; i < 50 * WORDS_PER_ROW && found < WORDS_PER_ROW; i++) {
                int bits = op.match() | (random.nextInt() & ~op.mask());
                if (op.size() == 2) {
                    bits &= 0xffff;
                }
                if (DECODER.decode(bits, op.size()) == op) {
                    out.add(new int[] {op.id(), bits});
                    found++;
                }
            }
            assertTrue(found > 0, op.mnemonic() + ": no valid word found");
        }
        return out;
    }

    @Test
    void operandsByPositionAreThePrintedOperands() {
        for (int[] s : samples()) {
            Opcode op = ISA.opcodes().get(s[0]);
            int bits = s[1];
            StringBuilder text = new StringBuilder();
            Printer.EXACT.printOperands(op, bits, 0x1000, text, OFFSET);
            List<String> printed = words(text.toString());
            List<String> template = words(op.operands.text().replace("?", ""));
            String what = op.mnemonic() + " " + text;
            int p = 0;
            int index = 0;
            for (String word : template) {
                Field f = op.field(word);
                if (f == null) { // a literal of the template (c.addi4spn's sp)
                    assertEquals(word, printed.get(p++), what);
                    continue;
                }
                assertSame(f, op.fields().get(index), what);
                long value = op.operand(bits, index++);
                if (f.kind == OperandKind.VTYPE) { // "e32, m2, ta, ma" or, reserved, its number in hex
                    int words = VectorType.named((int) value) ? 4 : 1;
                    assertEquals(words == 4 ? vtypeText(value) : "0x" + Long.toHexString(value),
                            String.join(", ", printed.subList(p, p + words)), what);
                    p += words;
                    continue;
                }
                if (p < printed.size() && printedValue(f, printed.get(p)) != null) {
                    assertEquals(printedValue(f, printed.get(p++)), value, what + ": " + f);
                } else { // an omitted optional operand: its default
                    assertEquals(Encoder.defaultValue(f), value, what + ": " + f);
                }
            }
            assertEquals(printed.size(), p, what);
            assertEquals(op.operandCount(), index, what);
        }
    }

    /** A named vtype's text, written out by hand from the V specification's bit layout. */
    private static String vtypeText(long v) {
        String[] lmul = {"m1", "m2", "m4", "m8", "?", "mf8", "mf4", "mf2"};
        return "e" + (8 << ((v >>> 3) & 7)) + ", " + lmul[(int) (v & 7)] + ", " + ((v & 0x40) != 0 ? "ta" : "tu")
                + ", " + ((v & 0x80) != 0 ? "ma" : "mu");
    }

    /** The value a printed operand word stands for, or null if it is not one of that field. */
    private static Long printedValue(Field f, String word) {
        if (f.kind == OperandKind.FLI) {
            int index = List.of(Names.FLI).indexOf(word);
            return index < 0 ? null : (long) index;
        }
        long v = switch (f.type()) {
            case INTEGER_REGISTER -> Names.xreg(word);
            case FLOAT_REGISTER -> Names.freg(word);
            case IMMEDIATE, BRANCH_OFFSET -> word.startsWith("0x") ? Long.parseLong(word.substring(2), 16)
                    : word.matches("-?[0-9]+") ? Long.parseLong(word) : Long.MIN_VALUE;
            case CSR -> word.startsWith("0x") ? Long.parseLong(word.substring(2), 16) : ISA.csrNumber(word);
            case ROUNDING_MODE -> Names.roundingMode(word);
            case FENCE_SET -> Names.fence(word);
            case VECTOR_REGISTER -> Names.vreg(word);
            case VECTOR_MASK -> word.equals("v0.t") ? 0 : -1;
            case VECTOR_TYPE -> -1; // several words: checked by VectorTypeTest
        };
        if (f.kind == OperandKind.CLUI && v >= 0x80000) {
            v -= 0x100000; // printed as the 20-bit value lui takes
        }
        return v == -1 && f.type() != Field.Type.IMMEDIATE && f.type() != Field.Type.BRANCH_OFFSET
                || v == Long.MIN_VALUE ? null : v;
    }

    private static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        for (String w : text.split("[ ,()]+")) {
            if (!w.isEmpty()) {
                out.add(w);
            }
        }
        return out;
    }

    @Test
    void rolesOf32BitInstructionsAreTheBaseFormatFields() {
        for (int[] s : samples()) {
            Opcode op = ISA.opcodes().get(s[0]);
            int b = s[1];
            if (op.size() != 4) {
                continue;
            }
            int present = 0;
            for (Operand role : Operand.values()) {
                if (op.has(role)) {
                    present++;
                    assertEquals(byHand(op, b, role), op.operand(b, role), op.mnemonic() + " " + role);
                    assertSame(op.field(role), op.fields().stream().filter(f -> f == op.field(role)).findFirst().orElse(null));
                } else {
                    assertNull(op.field(role));
                    assertThrows(IllegalArgumentException.class, () -> op.operand(b, role));
                }
            }
            assertEquals(op.operandCount(), present, op.mnemonic() + ": a role per field");
        }
    }

    /** The operand as the RISC-V base formats place it, written out per format. */
    private static long byHand(Opcode op, int b, Operand role) {
        int major = b & 0x7f;
        int funct3 = (b >>> 12) & 7;
        return switch (role) {
            case RD -> (b >>> 7) & 31;
            case RS1 -> (b >>> 15) & 31;
            case RS2 -> (b >>> 20) & 31;
            case RS3 -> (b >>> 27) & 31;
            case CSR -> (b >>> 20) & 0xfff;
            case RM -> funct3;
            case PRED -> (b >>> 24) & 15;
            case SUCC -> (b >>> 20) & 15;
            case VD, VS3 -> (b >>> 7) & 31;
            case VS1 -> (b >>> 15) & 31;
            case VS2 -> (b >>> 20) & 31;
            case VM -> (b >>> 25) & 1;
            case VTYPE -> (b >>> 20) & ((b >>> 30) == 3 ? 0x3ff : 0x7ff); // vsetivli: 10 bits, vsetvli: 11
            case BRANCH_OFFSET -> major == 0x63
                    ? ((b >> 31) << 12) | ((b >>> 7) & 1) << 11 | ((b >>> 25) & 0x3f) << 5 | ((b >>> 8) & 0xf) << 1
                    : ((b >> 31) << 20) | ((b >>> 12) & 0xff) << 12 | ((b >>> 20) & 1) << 11 | ((b >>> 21) & 0x3ff) << 1;
            case IMM -> major == 0x57 || major == 0x77 // vector: simm5/uimm5 in 19..15, vror.vi's bit 5 in 26
                    ? (op.field(role).kind == OperandKind.SIMM ? (b << 12) >> 27 : (b >>> 15) & 31)
                            | (op.mnemonic().equals("vror.vi") ? ((b >>> 26) & 1) << 5 : 0)
                    : op.mnemonic().startsWith("prefetch.") ? (b >> 25) << 5 // Zicbop: imm[11:5]
                    : op.mnemonic().equals("aes64ks1i") ? (b >>> 20) & 15 // rnum
                    : op.mnemonic().startsWith("sm4") ? b >>> 30 // bs
                    : switch (major) {
                case 0x53 -> (b >>> 15) & 31; // Zfa fli's constant index, in rs1's place
                case 0x37, 0x17 -> b >>> 12; // U
                case 0x23, 0x27 -> ((b >> 25) << 5) | ((b >>> 7) & 31); // S
                case 0x73 -> (b >>> 15) & 31; // csrr*i's zimm
                case 0x13, 0x1b -> funct3 == 1 || funct3 == 5
                        ? (b >>> 20) & (major == 0x13 || op.mnemonic().equals("slli.uw") ? 63 : 31) // shamt
                        : b >> 20;
                default -> b >> 20; // I
            };
        };
    }

    @Test
    void compressedInstructionsHaveTheRolesOfTheirExpansion() {
        int checked = 0;
        for (int parcel = 0; parcel < 1 << 16; parcel++) {
            Opcode op = (parcel & 3) == 3 ? null : DECODER.decode(parcel, 2);
            if (op == null || op.expandsTo == null) {
                continue;
            }
            int wide = Expansions.expand(op, parcel);
            Opcode w = op.expandsTo;
            for (Operand role : Operand.values()) {
                assertEquals(w.has(role), op.has(role), op.mnemonic() + " " + role);
                if (op.has(role)) {
                    assertEquals(w.operand(wide, role), op.operand(parcel, role), op.mnemonic() + " " + role
                            + " of " + Integer.toHexString(parcel));
                }
            }
            assertEquals(w.controlFlow(wide), op.controlFlow(parcel), op.mnemonic());
            checked++;
        }
        assertTrue(checked > 40_000, checked + " parcels");
    }

    @Test
    void writtenOperandsReadBackAndTouchNothingElse() {
        SplittableRandom random = new SplittableRandom(5);
        for (int[] s : samples()) {
            Opcode op = ISA.opcodes().get(s[0]);
            int bits = s[1];
            for (Operand role : Operand.values()) {
                Field f = op.field(role);
                if (f == null) {
                    if (op.has(role)) {
                        assertThrows(IllegalArgumentException.class, () -> op.withOperand(bits, role, 0));
                    }
                    continue;
                }
                long v = f.min() + (random.nextLong(f.max() - f.min() + 1) & -f.alignment());
                if (f.kind == OperandKind.CLUI) {
                    v &= 0xfffff;
                }
                int written = op.withOperand(bits, role, v);
                assertEquals(v, op.operand(written, role), op.mnemonic() + " " + role);
                for (Operand other : Operand.values()) {
                    if (other != role && op.field(other) != null && op.field(other) != f) {
                        assertEquals(op.operand(bits, other), op.operand(written, other), op.mnemonic() + " " + other);
                    }
                }
                assertEquals(bits & op.mask(), written & op.mask(), op.mnemonic() + ": fixed bits kept");
                assertThrows(IllegalArgumentException.class, () -> f.with(bits, f.max() + 1));
                assertThrows(IllegalArgumentException.class, () -> f.with(bits, f.min() - 1));
                assertFalse(f.fits(f.max() + 1));
            }
        }
    }

    /** The field writes patch/Rv.java does by hand, through the table's fields. */
    @Test
    void tableFieldsReadAndWriteTheIAndSAndUImmediates() {
        Field i = ISA.field("imm12");
        Field s = ISA.field("simm12s");
        Field u = ISA.field("uimm20");
        Field rd = ISA.field("rd");
        SplittableRandom random = new SplittableRandom(3);
        for (int k = 0; k < 100_000; k++) {
            int bits = random.nextInt();
            long imm = random.nextInt(-2048, 2048);
            long hi = random.nextInt(0, 1 << 20);
            assertEquals((bits & 0x000fffff) | (int) ((imm & 0xfff) << 20), i.with(bits, imm));
            assertEquals((bits & 0x01fff07f) | (int) (((imm >> 5) & 0x7f) << 25) | (int) ((imm & 31) << 7), s.with(bits, imm));
            assertEquals((bits & 0xfff) | (int) (hi << 12), u.with(bits, hi));
            assertEquals(bits >> 20, i.value(bits));
            assertEquals(((bits >> 25) << 5) | ((bits >>> 7) & 31), s.value(bits));
            assertEquals(bits >>> 12, u.value(bits));
            assertEquals((bits >>> 7) & 31, rd.value(bits));
        }
        assertEquals(Field.Type.INTEGER_REGISTER, rd.type());
        assertEquals(Field.Type.BRANCH_OFFSET, ISA.field("boff").type());
        assertEquals(-4096, ISA.field("boff").min());
        assertEquals(2, ISA.field("boff").alignment());
        assertFalse(ISA.field("boff").fits(3));
        assertNull(ISA.field("nonesuch"));
    }

    @Test
    void rolesAndFieldsByName() throws OperandException {
        Opcode cAddi = ISA.opcode("c.addi");
        int bits = Encoder.assemble(cAddi, "a0, -3", 0, SymbolResolver.NONE);
        assertEquals(10, cAddi.operand(bits, Operand.RD));
        assertEquals(10, cAddi.operand(bits, Operand.RS1));
        assertEquals(-3, cAddi.operand(bits, Operand.IMM));
        assertSame(cAddi.field("rd"), cAddi.field(Operand.RS1));
        Opcode cJr = ISA.opcode("c.jr");
        int jr = Encoder.assemble(cJr, "t1", 0, SymbolResolver.NONE);
        assertEquals(0, cJr.operand(jr, Operand.RD));
        assertEquals(6, cJr.operand(jr, Operand.RS1));
        assertEquals(0, cJr.operand(jr, Operand.IMM));
        assertNull(cJr.field(Operand.RD), "implied by the encoding");
        Opcode cLui = ISA.opcode("c.lui");
        int lui = Encoder.assemble(cLui, "a0, 0xfffff", 0, SymbolResolver.NONE);
        assertEquals(0xfffff, cLui.operand(lui, Operand.IMM), "as lui takes it");
        assertEquals(lui, cLui.withOperand(lui, Operand.IMM, 0xfffff));
        Opcode fmadd = ISA.opcode("fmadd.d");
        int f = Encoder.assemble(fmadd, "fa0, fa1, fa2, fa3, rtz", 0, SymbolResolver.NONE);
        assertEquals(13, fmadd.operand(f, Operand.RS3));
        assertEquals(1, fmadd.operand(f, Operand.RM));
        assertEquals(Field.Type.FLOAT_REGISTER, fmadd.field(Operand.RD).type());
        assertEquals(List.of("frd", "frs1", "frs2", "frs3", "rm"), fmadd.operandNames());
    }

    @Test
    void theTableNamesTheExtensionsItDecodes() {
        Set<Extension> listed = ISA.extensions();
        for (Opcode op : ISA.opcodes()) {
            assertTrue(listed.containsAll(op.requires()), op.mnemonic());
        }
        EnumSet<Extension> needed = EnumSet.noneOf(Extension.class);
        ISA.opcodes().forEach(op -> {
            needed.addAll(op.requires());
            needed.addAll(op.anyOf());
        });
        assertEquals(needed, listed);
        assertSame(ISA.decoder(Extension.all()), ISA.decoder(listed), "one decoder for both");
    }
}
