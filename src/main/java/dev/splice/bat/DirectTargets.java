package dev.splice.bat;

import java.util.function.LongConsumer;

/** Where the direct branches, jumps and calls of a piece of code lead outside it (both ISAs). */
final class DirectTargets {
    private DirectTargets() {}

    /**
     * The absolute targets of the direct control transfers in {@code code[base, base + size)} at
     * {@code address} that leave it; a jump to its own end is BOLT's "jump past end", not a reference.
     * x86-64 stops at the first bytes that do not decode, as BOLT's disassembly does.
     */
    static void leaving(boolean riscv, byte[] code, int base, int size, long address, LongConsumer out) {
        if (riscv) {
            RiscVCfg.externalTargets(code, base, size, address, out);
            return;
        }
        int end = Math.min(code.length, base + size);
        for (int at = base; at < end; ) {
            X86Lengths.Insn insn = X86Lengths.decode(code, at, end);
            if (insn == null) {
                return;
            }
            X86Lengths.Kind k = insn.kind();
            if (k == X86Lengths.Kind.JUMP || k == X86Lengths.Kind.CONDITIONAL || k == X86Lengths.Kind.CALL) {
                long t = insn.target(address + (at - base)) - address;
                if (t < 0 || t > size) {
                    out.accept(address + t);
                }
            }
            at += insn.length();
        }
    }
}
