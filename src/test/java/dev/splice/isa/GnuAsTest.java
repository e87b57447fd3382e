package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every table entry with boundary operand values, assembled by Splice's Encoder and by GNU as
 * (binutils 2.40), gives identical bytes. Where GNU as 2.40 cannot take Splice's exact text, the
 * entry goes to llvm-mc-22 instead, by a named rule in {@link #toLlvm} (see docs/isa.md).
 */
class GnuAsTest {
    static final String MARCH = "rv64gcv_zba_zbb_zbs_zicbom_zicboz_zihintpause";
    /** Prints targets as ".+N", which both assemblers resolve without a symbol. */
    static final TargetNamer DOT = (out, pc, target) -> out.append(target >= pc ? ".+" : ".-")
            .append(Math.abs(target - pc));

    static Path dir;

    @BeforeAll
    static void setUp() {
        dir = LlvmPeer.tempDir();
    }

    @AfterAll
    static void tearDown() {
        LlvmPeer.deleteTree(dir);
    }

    /**
     * Why GNU as 2.40 cannot assemble an instruction in Splice's exact form, or null if it can.
     * Such instructions are checked against llvm-mc-22 instead.
     */
    static String toLlvm(Opcode op, int bits) {
        if (op.extension() == Extension.ZICOND) {
            return "binutils 2.40 has no Zicond";
        }
        if (op.extension().isaName().startsWith("zv")) {
            return "binutils 2.40 has no vector crypto or bit-manipulation (Zv*) extensions";
        }
        if (op.mnemonic().equals("fence") && (((bits >>> 24) & 15) == 0 || ((bits >>> 20) & 15) == 0)) {
            return "GNU as 2.40 rejects an empty fence set (fence w, 0 is its pause)";
        }
        for (Field f : op.fields) {
            if (f.kind == OperandKind.RMX && f.value(bits) != 0) {
                return "GNU as 2.40 takes no rounding mode on exact conversions";
            }
            if (f.kind == OperandKind.CSR && CsrColumns.llvmOnlyNumbers().contains((int) f.value(bits))) {
                return "GNU as 2.40 does not know the CSR names only llvm-objdump-22 prints";
            }
        }
        return null;
    }

    /** GNU as 2.40 spells the shamt-0 HINTs c.slli64/c.srli64/c.srai64 (LLVM: c.slli rd, 0). */
    static String gnuSpelling(Opcode op, int bits, String exact) {
        String m = op.mnemonic();
        if ((m.equals("c.slli") || m.equals("c.srli") || m.equals("c.srai"))
                && exact.endsWith(", 0")) {
            return m + "64 " + exact.substring(m.length() + 1, exact.length() - 3);
        }
        return exact;
    }

    @Test
    void everyEntryWithBoundaryOperandsMatchesGnuAs() throws Exception {
        List<String> gnu32 = new ArrayList<>();
        List<String> gnu16 = new ArrayList<>();
        List<String> llvm32 = new ArrayList<>();
        List<String> llvm16 = new ArrayList<>();
        ByteBuffer g32 = buffer(), g16 = buffer(), l32 = buffer(), l16 = buffer();
        Map<String, Integer> routed = new TreeMap<>();
        int entries = 0;
        int rejected = 0;
        StringBuilder sb = new StringBuilder();
        for (Opcode op : Isa.rv64().opcodes()) {
            if (!op.enabledBy(Extension.classic())) {
                continue; // the extensions of session 6 have their own peer test (ExtensionsPeerTest)
            }
            entries++;
            for (long[] tuple : Boundaries.tuples(op)) {
                int bits;
                try {
                    bits = Encoder.encode(op, tuple);
                } catch (OperandException e) {
                    assertTrue(e.getMessage().contains("reserved"), e.getMessage());
                    rejected++;
                    continue;
                }
                sb.setLength(0);
                Printer.EXACT.print(op, bits, 0x1000, sb, DOT);
                String text = sb.toString();
                String operands = text.length() > op.mnemonic().length() ? text.substring(op.mnemonic().length() + 1) : "";
                assertEquals(bits, Encoder.assemble(op, operands, 0x1000, SymbolResolver.NONE),
                        "Splice reassembles its own '" + text + "'");
                String why = toLlvm(op, bits);
                boolean narrow = op.size() == 2;
                if (why != null) {
                    routed.merge(why, 1, Integer::sum);
                    (narrow ? llvm16 : llvm32).add(text);
                    put(narrow ? l16 : l32, bits, op.size());
                } else {
                    (narrow ? gnu16 : gnu32).add(gnuSpelling(op, bits, text));
                    put(narrow ? g16 : g32, bits, op.size());
                }
            }
        }
        check(gnu32, g32, gnu(gnu32, false), "GNU as");
        check(gnu16, g16, gnu(gnu16, true), "GNU as");
        check(llvm32, l32, LlvmPeer.assemble(llvm32, LlvmPeer.MATTR_NO_C, dir), "llvm-mc");
        check(llvm16, l16, LlvmPeer.assemble(llvm16, LlvmPeer.MATTR, dir), "llvm-mc");
        System.out.printf("%d table entries: %d instructions matched GNU as, %d llvm-mc (%s); %d reserved tuples rejected%n",
                entries, gnu32.size() + gnu16.size(), llvm32.size() + llvm16.size(), routed, rejected);
        assertTrue(gnu32.size() + gnu16.size() > 3000);
    }

    /** Out-of-range and misaligned operands: Splice rejects them with a clear message, and so does GNU as. */
    @Test
    void outOfRangeOperandsAreRejectedNotTruncated() throws Exception {
        List<String> lines = new ArrayList<>();
        List<Boolean> gnuChecks = new ArrayList<>();
        int cases = 0;
        for (Opcode op : Isa.rv64().opcodes()) {
            Field[] fs = op.fields;
            for (int i = 0; i < fs.length; i++) {
                Field f = fs[i];
                if (f.kind.register() || f.kind == OperandKind.RM || f.kind == OperandKind.RMX
                        || f.kind == OperandKind.FENCE || f.kind == OperandKind.VMASK
                        || f.kind == OperandKind.FLI) { // names, not ranges
                    continue;
                }
                List<Long> bad = new ArrayList<>();
                if (f.kind == OperandKind.CLUI) {
                    bad.addAll(List.of(0L, 32L, 0xfffdfL, 0x100000L));
                } else {
                    bad.add(f.minValue() - f.alignment());
                    bad.add(f.maxValue() + 1);
                    if (f.alignment() > 1) {
                        bad.add(f.alignment() / 2);
                    }
                }
                for (long value : bad) {
                    String operands = operandsWith(op, i, value);
                    try {
                        int bits = Encoder.assemble(op, operands, 0x1000, SymbolResolver.NONE);
                        fail(op.mnemonic() + " " + operands + " was accepted as 0x" + Integer.toHexString(bits));
                    } catch (OperandException e) {
                        String m = e.getMessage();
                        assertTrue(m.startsWith(op.mnemonic() + ": ") && (m.contains("out of range")
                                || m.contains("multiple of") || m.contains("reserved") || m.contains("too large")), m);
                        assertTrue(e.column() >= 0, "column for " + m);
                    }
                    cases++;
                    // GNU as turns far branches into longer sequences, so only non-branch operands go to it.
                    if (f.kind != OperandKind.PCREL && toLlvm(op, op.match()) == null
                            && (op.enabledBy(Extension.classic()) || op.extension() == Extension.V)) {
                        lines.add(op.mnemonic() + " " + operands);
                    }
                }
            }
        }
        Set<Integer> errorLines = gnuErrors(lines);
        for (int i = 0; i < lines.size(); i++) {
            assertTrue(errorLines.contains(i + 1), "GNU as accepted '" + lines.get(i) + "' that Splice rejects");
        }
        System.out.printf("%d out-of-range operands rejected; %d of them also by GNU as%n", cases, lines.size());
    }

    /** Operand text with field {@code index} set to a raw number and the others typical. */
    static String operandsWith(Opcode op, int index, long value) {
        StringBuilder sb = new StringBuilder();
        int k = 0;
        for (Template.Token tok : op.operands.tokens()) {
            if (!tok.isField()) {
                sb.append(tok.literal());
                continue;
            }
            Field f = tok.field();
            if (tok.optional()) {
                sb.append(tok.separator());
            }
            if (k == index) {
                sb.append(f.kind == OperandKind.PCREL ? (value >= 0 ? ".+" : ".-") + Math.abs(value)
                        : (f.kind == OperandKind.CLUI || f.kind == OperandKind.HEX20) && value >= 0 ? "0x" + Long.toHexString(value)
                        : Long.toString(value));
            } else {
                Printer.value(f, Boundaries.typical(f), 0x1000, sb, DOT);
            }
            k++;
        }
        return sb.toString();
    }

    private static ByteBuffer buffer() {
        return ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void put(ByteBuffer b, int bits, int size) {
        if (size == 2) {
            b.putShort((short) bits);
        } else {
            b.putInt(bits);
        }
    }

    private static void check(List<String> text, ByteBuffer expected, byte[] actual, String peer) {
        byte[] ours = new byte[expected.position()];
        expected.flip().get(ours);
        int pos = 0;
        for (String line : text) {
            int size = Isa.rv64().opcode(line.split(" ")[0]) != null
                    ? Isa.rv64().opcode(line.split(" ")[0]).size() : 2;
            if (pos + size > actual.length || !java.util.Arrays.equals(ours, pos, pos + size, actual, pos, pos + size)) {
                fail(peer + " assembled '" + line + "' differently (offset " + pos + ")");
            }
            pos += size;
        }
        assertEquals(ours.length, actual.length, peer + " output length");
    }

    private static byte[] gnu(List<String> lines, boolean rvc) throws IOException, InterruptedException {
        Path src = dir.resolve("gnu.s");
        Path obj = dir.resolve("gnu.o");
        Path bin = dir.resolve("gnu.bin");
        StringBuilder sb = new StringBuilder(".text\n.option norelax\n.option " + (rvc ? "rvc" : "norvc") + "\n");
        for (String l : lines) {
            sb.append(l).append('\n');
        }
        Files.writeString(src, sb);
        Tools.Result r = Tools.run(List.of("riscv64-linux-gnu-as", "-march=" + MARCH, "-o", obj.toString(),
                src.toString()), null, 300);
        if (r.exitCode() != 0 || !r.stderr().isBlank()) {
            fail("GNU as rejected Splice's output:\n" + r.stderr().substring(0, Math.min(6000, r.stderr().length())));
        }
        Tools.run("riscv64-linux-gnu-objcopy", "-O", "binary", "--only-section=.text", obj.toString(), bin.toString())
                .checked("objcopy");
        return Files.readAllBytes(bin);
    }

    /** The 1-based input line numbers GNU as reports errors for (line 1 = first instruction). */
    private static java.util.Set<Integer> gnuErrors(List<String> lines) throws IOException {
        Path src = dir.resolve("bad.s");
        StringBuilder sb = new StringBuilder();
        for (String l : lines) {
            sb.append(l).append('\n');
        }
        Files.writeString(src, sb);
        Tools.Result r = Tools.run(List.of("riscv64-linux-gnu-as", "-march=" + MARCH, "-o",
                dir.resolve("bad.o").toString(), src.toString()), null, 300);
        java.util.Set<Integer> errors = new TreeSet<>();
        Matcher m = Pattern.compile("bad\\.s:(\\d+): Error").matcher(r.stderr());
        while (m.find()) {
            errors.add(Integer.parseInt(m.group(1)));
        }
        return errors;
    }
}
