package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Vector operand syntax beyond Splice's own printed form, as llvm-mc-22 reads it: vtype's short
 * forms (m1, tu, mu left out), vtype numbers, zero offsets on vector memory operands; and the
 * errors for what no peer accepts.
 */
class VectorSyntaxTest {
    static Path dir;

    @BeforeAll
    static void setUp() {
        dir = LlvmPeer.tempDir();
    }

    @AfterAll
    static void tearDown() {
        LlvmPeer.deleteTree(dir);
    }

    static final List<String> FORMS = List.of(
            "vsetvli a0, a1, e32",
            "vsetvli a0, a1, e32, m2",
            "vsetvli a0, a1, e32, ta, ma",
            "vsetvli a0, a1, e32, m2, ta",
            "vsetvli a0, a1, e32, mf2, ma",
            "vsetvli a0, a1, 0x4",
            "vsetvli a0, a1, 2047",
            "vsetivli a0, 31, e64, m8, tu, mu",
            "vsetivli zero, 0, e8, m1, ta, ma",
            "vadd.vv v1, v2, v3, v0.t",
            "vadd.vi v31, v0, -16",
            "vle8.v v1, 0(a0)",
            "vle8.v v1, (a0), v0.t",
            "vluxei64.v v8, (sp), v16, v0.t",
            "vror.vi v1, v2, 63",
            "vmerge.vim v1, v2, 15, v0",
            "vfmacc.vf v4, fa0, v8");

    private static int splice(String line) throws OperandException {
        int sp = line.indexOf(' ');
        Opcode op = Isa.rv64().opcode(line.substring(0, sp));
        return Encoder.assemble(op, line.substring(sp + 1), 0, SymbolResolver.NONE);
    }

    @Test
    void theFormsLlvmMcReadsGiveItsBytes() throws IOException, OperandException {
        byte[] theirs = LlvmPeer.assemble(FORMS, LlvmPeer.MATTR_NO_C, dir);
        ByteBuffer b = ByteBuffer.wrap(theirs).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(FORMS.size() * 4, theirs.length);
        for (String line : FORMS) {
            assertEquals(Integer.toHexString(b.getInt()), Integer.toHexString(splice(line)), line);
        }
    }

    @Test
    void whatNoPeerAcceptsIsAnErrorAtItsColumn() {
        // The column is where the offending word starts in the operand text.
        record Bad(String line, String message, String at) {
            int column() {
                return line.substring(line.indexOf(' ') + 1).indexOf(at);
            }
        }
        for (Bad bad : List.of(
                new Bad("vsetvli a0, a1, e128, m1, ta, ma", "'e128' is not an element width", "e128"),
                new Bad("vsetvli a0, a1, e32, m3", "'m3' is not a register group multiplier", "m3"),
                new Bad("vsetvli a0, a1, e32, ma, ta", "unexpected ', ta'", ", ta"),
                new Bad("vsetvli a0, a1, 2048", "out of range", "2048"),
                new Bad("vadd.vv v1, v2, v3, v1.t", "expected the mask operand v0.t, got 'v1.t'", "v1.t"),
                new Bad("vadd.vv v1, v2, x3", "'x3' is not a vector register", "x3"),
                new Bad("vadd.vv v32, v2, v3", "'v32' is not a vector register", "v32"),
                new Bad("vmv2r.v v1, v2", "must not be v1 (reserved encoding)", "v1"))) {
            OperandException e = assertThrows(OperandException.class, () -> splice(bad.line()), bad.line());
            assertTrue(e.getMessage().contains(bad.message()), bad.line() + ": " + e.getMessage());
            assertEquals(bad.column(), e.column(), bad.line() + ": " + e.getMessage());
        }
    }
}
