package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The GNU-versus-LLVM differences listed in docs/isa.md, checked against GNU objdump 2.40: for each
 * word, what GNU objdump prints and what Splice decodes (which LlvmDecodeTest shows is LLVM's view).
 */
class GnuDifferencesTest {
    /** One documented difference: the word, GNU objdump's mnemonic, Splice's (null = raw). */
    record Case(String what, int bits, int size, String gnu, String splice) {}

    static List<Case> cases() throws OperandException {
        Isa isa = Isa.rv64();
        int fadd = Encoder.assemble(isa.opcode("fadd.d"), "fa0, fa1, fa2, rne", 0, null);
        int fmadd = Encoder.assemble(isa.opcode("fmadd.s"), "fa0, fa1, fa2, fa3, rne", 0, null);
        int fcvt = Encoder.assemble(isa.opcode("fcvt.d.w"), "fa0, a0, dyn", 0, null);
        return List.of(
                new Case("fadd.d with reserved rm 5", fadd | 5 << 12, 4, "fadd.d", null),
                new Case("fmadd.s with reserved rm 6", fmadd | 6 << 12, 4, "fmadd.s", null),
                new Case("c.addi16sp sp, 0 (reserved)", 0x6101, 2, "c.addi16sp", null),
                new Case("c.nop HINT with an immediate", 0x0015, 2, "c.addi", "c.nop"),
                new Case("c.slli HINT with shamt 0", 0x0582, 2, "c.slli64", "c.slli"),
                new Case("c.srli HINT with shamt 0", 0x8101, 2, "c.srli64", "c.srli"),
                new Case("c.srai HINT with shamt 0", 0x8501, 2, "c.srai64", "c.srai"),
                new Case("fcvt.d.w with rm dyn", fcvt, 4, null, "fcvt.d.w"),
                new Case("uret (withdrawn N extension)", 0x00200073, 4, "uret", null),
                new Case("hret (withdrawn)", 0x20200073, 4, "hret", null),
                new Case("sfence.vm (privileged spec 1.9)", 0x10400073, 4, "sfence.vm", null));
    }

    @Test
    void documentedDifferencesAreWhatGnuObjdumpAndSpliceDo() throws Exception {
        List<Case> cases = cases();
        ByteBuffer buf = ByteBuffer.allocate(cases.size() * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (Case c : cases) {
            if (c.size() == 2) {
                buf.putShort((short) c.bits());
                buf.putShort((short) 0x0001); // keeps every case at a multiple of 4
            } else {
                buf.putInt(c.bits());
            }
        }
        Path dir = LlvmPeer.tempDir();
        try {
            Path bin = dir.resolve("d.bin");
            Path obj = dir.resolve("d.o");
            Files.write(bin, buf.array());
            LlvmPeer.run(dir.resolve("o1"), "riscv64-linux-gnu-objcopy", "-I", "binary", "-O", "elf64-littleriscv",
                    bin.toString(), obj.toString());
            Path out = dir.resolve("d.dis");
            LlvmPeer.run(out, "riscv64-linux-gnu-objdump", "-D", "-z", "-j", ".data", "-M", "no-aliases",
                    obj.toString());
            List<String> gnu = new ArrayList<>();
            Pattern line = Pattern.compile("^\\s*([0-9a-f]+):\\s+[0-9a-f]+\\s+(\\S+)");
            java.util.Map<Long, String> byOffset = new java.util.HashMap<>();
            for (String s : Files.readAllLines(out)) {
                Matcher m = line.matcher(s);
                if (m.find()) {
                    byOffset.put(Long.parseLong(m.group(1), 16), m.group(2));
                }
            }
            Decoder decoder = Isa.rv64().decoder(Extension.all());
            for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                String g = byOffset.get(4L * i);
                String gnuMnemonic = g == null || g.startsWith(".") ? null : g;
                assertEquals(c.gnu(), gnuMnemonic, "GNU objdump on " + c.what());
                Opcode op = decoder.decode(c.bits(), c.size());
                assertEquals(c.splice(), op == null ? null : op.mnemonic(), "Splice on " + c.what());
                gnu.add(c.what());
            }
            assertEquals(cases.size(), gnu.size());
        } finally {
            LlvmPeer.deleteTree(dir);
        }
    }
}
