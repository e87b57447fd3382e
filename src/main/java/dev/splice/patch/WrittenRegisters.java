package dev.splice.patch;

import dev.splice.isa.ControlFlow;
import dev.splice.isa.Field;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;

/**
 * The integer registers a fragment's code may change, as a mask (bit k: register xk): the rd of
 * every instruction that has an integer destination. A fragment that calls, jumps or traps
 * (ecall, ebreak), or holds a Zcmp push or pop (whose registers no operand names), may change any
 * register: then every bit is set. Floating-point and vector
 * destinations are not integer registers and set no bit.
 */
final class WrittenRegisters {
    /** Any register may change. */
    static final long ALL = -1L;

    private WrittenRegisters() {}

    /** The registers {@code ops} (by byte offset, null between instructions) write in {@code bytes}. */
    static long of(Opcode[] ops, byte[] bytes) {
        long writes = 0;
        for (int p = 0; p < ops.length; p++) {
            Opcode op = ops[p];
            if (op == null) {
                continue;
            }
            int bits = FragmentAssembler.bits(op, bytes, p);
            ControlFlow flow = op.controlFlow(bits);
            if (flow != ControlFlow.NONE || op.mnemonic().startsWith("cm.")) {
                // Leaves the fragment or traps (whatever runs there may write anything); Zcmp's push and
                // pop write registers that no operand names.
                return ALL;
            }
            if (op.has(Operand.RD)) {
                Field f = op.field(Operand.RD);
                if (f == null || f.type() == Field.Type.INTEGER_REGISTER) { // implied destinations are integer registers
                    writes |= 1L << op.operand(bits, Operand.RD);
                }
            }
        }
        return writes & ~1L; // x0 stays zero
    }
}
