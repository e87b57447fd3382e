package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The control-flow class of every row against a list written out by hand, and of jal, jalr, c.j,
 * c.jr and c.jalr for every pair of registers against the RISC-V specification's return-address
 * stack hints (link registers ra and t0).
 */
class ControlFlowTest {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());

    /** Every row whose class does not depend on its operands and is not NONE. */
    private static final Map<String, ControlFlow> FIXED = Map.ofEntries(
            Map.entry("beq", ControlFlow.BRANCH), Map.entry("bne", ControlFlow.BRANCH),
            Map.entry("blt", ControlFlow.BRANCH), Map.entry("bge", ControlFlow.BRANCH),
            Map.entry("bltu", ControlFlow.BRANCH), Map.entry("bgeu", ControlFlow.BRANCH),
            Map.entry("c.beqz", ControlFlow.BRANCH), Map.entry("c.bnez", ControlFlow.BRANCH),
            Map.entry("c.j", ControlFlow.JUMP), Map.entry("c.jalr", ControlFlow.INDIRECT_CALL),
            Map.entry("ecall", ControlFlow.TRAP), Map.entry("ebreak", ControlFlow.TRAP),
            Map.entry("c.ebreak", ControlFlow.TRAP), Map.entry("c.unimp", ControlFlow.TRAP),
            Map.entry("sret", ControlFlow.TRAP_RETURN), Map.entry("mret", ControlFlow.TRAP_RETURN),
            Map.entry("dret", ControlFlow.TRAP_RETURN));

    @Test
    void everyRowHasItsClass() {
        SplittableRandom random = new SplittableRandom(7);
        for (Opcode op : ISA.opcodes()) {
            String m = op.mnemonic();
            if (m.equals("jal") || m.equals("jalr") || m.equals("c.jr")) {
                continue; // by register: below
            }
            for (int i = 0; i < 2000; i++) {
                int bits = op.match() | (random.nextInt() & ~op.mask());
                if (op.size() == 2) {
                    bits &= 0xffff;
                }
                if (DECODER.decode(bits, op.size()) == op) {
                    assertEquals(FIXED.getOrDefault(m, ControlFlow.NONE), op.controlFlow(bits), m);
                }
            }
        }
    }

    @Test
    void linkingJumpsByTheirRegisters() throws OperandException {
        Opcode jal = ISA.opcode("jal");
        Opcode jalr = ISA.opcode("jalr");
        Opcode cJr = ISA.opcode("c.jr");
        for (int rd = 0; rd < 32; rd++) {
            int j = Encoder.encode(jal, rd, 2048);
            assertEquals(rd == 0 ? ControlFlow.JUMP : ControlFlow.CALL, jal.controlFlow(j), "jal x" + rd);
            for (int rs1 = 0; rs1 < 32; rs1++) {
                ControlFlow expected = rd != 0 ? ControlFlow.INDIRECT_CALL // links: push (or pop and push, or no hint)
                        : rs1 == 1 || rs1 == 5 ? ControlFlow.RETURN // pop
                        : ControlFlow.INDIRECT_JUMP;
                assertEquals(expected, jalr.controlFlow(Encoder.encode(jalr, rd, 8, rs1)), "jalr x" + rd + ", x" + rs1);
                if (rd == 0 && rs1 != 0) {
                    assertEquals(expected, cJr.controlFlow(Encoder.encode(cJr, rs1)), "c.jr x" + rs1);
                }
            }
        }
    }
}
