package dev.splice.bat;

/**
 * The basic blocks of an x86-64 function without a translation table, as perf2bolt-22 builds them
 * (step 2 of docs/x86cfg-notes.md, not wired into translation yet): decoded with
 * {@link X86Lengths}, formed by the same rules as RISC-V ({@link RiscVCfg#fromDecoded}). Differences
 * from RISC-V, checked with llvm-bolt-22 --print-cfg: a conditional branch out of the function is a
 * conditional tail call (its block falls through), int3 falls through, hlt and ud2 stop, xbegin is a
 * conditional branch, and a function holding jrcxz/loop has no CFG. Jump tables are not read: an
 * indirect jump ends its block with no successor.
 */
final class X86Cfg {
    private X86Cfg() {}

    /**
     * The CFG of the function whose bytes are {@code code[base, base + size)}, with the offsets where
     * other code enters it and its landing pads; null if it has none.
     */
    static RiscVCfg of(byte[] code, int base, int size, int[] entries, int[] landingPads) {
        if (size <= 0 || base < 0 || base + size > code.length) {
            return null;
        }
        int[] kind = new int[size];
        int[] target = new int[size];
        boolean[] isInstruction = new boolean[size];
        boolean[] leader = new boolean[size + 1];
        boolean[] entry = new boolean[size + 1];
        leader[0] = true;
        entry[0] = true;
        for (int[] list : new int[][] {entries, landingPads}) {
            for (int e : list) {
                if (e > 0 && e < size) {
                    leader[e] = true;
                    entry[e] = true;
                }
            }
        }
        int pc = 0;
        while (pc < size) {
            X86Lengths.Insn insn = X86Lengths.decode(code, base + pc, base + size);
            if (insn == null || insn.kind() == X86Lengths.Kind.LOOP) {
                return null; // BOLT cannot disassemble it either
            }
            isInstruction[pc] = true;
            long t = pc + insn.length() + insn.displacement();
            int k = switch (insn.kind()) {
                case CONDITIONAL -> RiscVCfg.CONDITIONAL;
                case JUMP -> RiscVCfg.JUMP;
                case CALL -> RiscVCfg.CALL;
                case RETURN, INDIRECT_JUMP, TRAP -> RiscVCfg.STOP;
                default -> RiscVCfg.PLAIN;
            };
            if (k == RiscVCfg.JUMP && t == size) {
                k = RiscVCfg.PLAIN; // BOLT: "jump past end"
            } else if ((k == RiscVCfg.JUMP || k == RiscVCfg.CONDITIONAL) && (t < 0 || t >= size)) {
                k = k == RiscVCfg.CONDITIONAL ? RiscVCfg.CONDITIONAL_TAIL_CALL : RiscVCfg.STOP;
            }
            kind[pc] = k;
            target[pc] = -1;
            if (k == RiscVCfg.JUMP || k == RiscVCfg.CONDITIONAL) {
                target[pc] = (int) t;
                leader[(int) t] = true;
            } else if (k == RiscVCfg.CALL && t > 0 && t < size) {
                leader[(int) t] = true; // a call into its own body: an entry point
                entry[(int) t] = true;
            }
            pc += insn.length();
        }
        return RiscVCfg.fromDecoded(kind, target, isInstruction, leader, entry, size);
    }
}
