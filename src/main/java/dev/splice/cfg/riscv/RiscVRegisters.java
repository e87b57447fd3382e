package dev.splice.cfg.riscv;

import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;

/**
 * The caller-saved integer registers a RISC-V function never names: a function that follows the
 * psABI may clobber t0-t6 and a0-a7 at any call, so one whose own code neither reads nor writes
 * such a register has no live value in it anywhere in its body, and code inserted into it may use
 * it without saving it. Registers are counted conservatively: every register operand counts,
 * floating-point ones too (by number), and ecall names a0-a7.
 */
public final class RiscVRegisters {
    private RiscVRegisters() {}

    /** The caller-saved registers, temporaries first: t0-t2, t3-t6, a7 down to a0. */
    private static final int[] CALLER_SAVED = {5, 6, 7, 28, 29, 30, 31, 17, 16, 15, 14, 13, 12, 11, 10};

    private static final class Table {
        static final Isa ISA = Isa.rv64();
        static final Decoder DECODER = ISA.decoder(ISA.extensions());
        static final Opcode ECALL = ISA.opcode("ecall");
    }

    /**
     * The caller-saved registers the function's code does not name, in the order of preference
     * (temporaries first).
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @return the register numbers; none when a word of the function does not decode
     */
    public static int[] unusedCallerSaved(byte[] code, int base, int size) {
        boolean[] named = new boolean[32];
        for (int pc = 0; pc < size; ) {
            int packed = Table.DECODER.decodeAt(code, base + pc, base + size);
            Opcode op = Table.DECODER.opcode(packed);
            if (op == null) {
                return new int[0];
            }
            int bits = 0;
            for (int i = 0; i < Math.min(4, Decoder.size(packed)); i++) {
                bits |= (code[base + pc + i] & 0xff) << (8 * i);
            }
            for (Operand role : new Operand[] {Operand.RD, Operand.RS1, Operand.RS2, Operand.RS3}) {
                if (op.has(role)) {
                    named[(int) op.operand(bits, role)] = true;
                }
            }
            if (op == Table.ECALL) {
                for (int r = 10; r <= 17; r++) {
                    named[r] = true;
                }
            }
            pc += Decoder.size(packed);
        }
        return java.util.Arrays.stream(CALLER_SAVED).filter(r -> !named[r]).toArray();
    }
}
