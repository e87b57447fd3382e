package dev.splice.bat;

import java.util.ArrayList;
import java.util.List;

/**
 * The basic blocks of an x86-64 function without a translation table, as perf2bolt-22 builds them
 * (step 2 of docs/x86cfg-notes.md, not wired into translation yet): decoded with
 * {@link X86Lengths}, formed by the same rules as RISC-V ({@link RiscVCfg#fromDecoded}). Differences
 * from RISC-V, checked with llvm-bolt-22 --print-cfg: a conditional branch out of the function is a
 * conditional tail call (its block falls through), int3 falls through, hlt and ud2 stop, xbegin is a
 * conditional branch, and a function holding jrcxz/loop has no CFG. Jump tables: only the
 * non-PIC form {@code jmp *table(,%reg,8)} is read (entries while they point into the function);
 * its targets start blocks. Other indirect jumps end their block with no successor.
 */
final class X86Cfg {
    private X86Cfg() {}

    /** Reads 8 bytes (little-endian) of the binary at an address; null where nothing is mapped. */
    interface Memory {
        Long read64(long address);
    }

    /** As {@link #of(byte[], int, int, int[], int[])}, reading jump tables through {@code memory}. */
    static RiscVCfg of(byte[] code, int base, int size, long address, Memory memory, int[] entries, int[] landingPads) {
        if (size <= 0 || base < 0 || base + size > code.length) {
            return null;
        }
        List<Integer> targets = new ArrayList<>();
        long lastRipLea = -1; // the address a `lea disp(%rip), %reg` last loaded: a PIC table base
        for (int pc = 0; pc < size; ) {
            X86Lengths.Insn insn = X86Lengths.decode(code, base + pc, base + size);
            if (insn == null) {
                return null;
            }
            long lea = ripLea(code, base + pc, insn.length());
            if (lea >= 0) {
                lastRipLea = address + pc + insn.length() + lea - (1L << 32);
            }
            if (insn.kind() == X86Lengths.Kind.INDIRECT_JUMP) {
                long table = absoluteTable(code, base + pc, insn.length());
                for (long entry = table; table >= 0; entry += 8) {
                    Long t = memory.read64(entry);
                    if (t == null || t < address || t >= address + size) {
                        break;
                    }
                    targets.add((int) (t - address));
                }
                if (table < 0 && lastRipLea >= 0 && registerJump(code, base + pc, insn.length())) {
                    // PIC: movslq (%base,%idx,4), %r; add %base, %r; jmp *%r; entries are target - table
                    for (long entry = lastRipLea; ; entry += 4) {
                        Long v = memory.read64(entry);
                        long t = v == null ? -1 : lastRipLea + (int) (long) v;
                        if (v == null || t < address || t >= address + size) {
                            break;
                        }
                        targets.add((int) (t - address));
                    }
                }
            }
            pc += insn.length();
        }
        int[] labels = new int[entries.length + targets.size()];
        System.arraycopy(entries, 0, labels, 0, entries.length);
        for (int i = 0; i < targets.size(); i++) {
            labels[entries.length + i] = targets.get(i);
        }
        return of(code, base, size, labels, landingPads);
    }

    /** For {@code lea disp32(%rip), %reg} at {@code at}: disp32 + 2^32 (never negative); else -1. */
    private static long ripLea(byte[] b, int at, int length) {
        int i = at;
        int end = at + length;
        while (i < end && (b[i] & 0xf0) == 0x40) {
            i++;
        }
        if (i + 6 != end || (b[i] & 0xff) != 0x8d || (b[i + 1] & 0xc7) != 0x05) {
            return -1;
        }
        int disp = (b[i + 2] & 0xff) | (b[i + 3] & 0xff) << 8 | (b[i + 4] & 0xff) << 16 | b[i + 5] << 24;
        return disp + (1L << 32);
    }

    /** Whether the instruction is {@code jmp *%reg} (FF /4, register operand). */
    private static boolean registerJump(byte[] b, int at, int length) {
        int i = at;
        int end = at + length;
        while (i < end && ((b[i] & 0xf0) == 0x40 || (b[i] & 0xff) == 0x3e)) {
            i++;
        }
        return i + 2 == end && (b[i] & 0xff) == 0xff && (b[i + 1] & 0xf8) == 0xe0;
    }

    /** The table address of {@code jmp *disp32(,%reg,8)} at {@code at}, or -1 for other forms. */
    private static long absoluteTable(byte[] b, int at, int length) {
        int i = at;
        int end = at + length;
        while (i < end && ((b[i] & 0xf0) == 0x40 || (b[i] & 0xff) == 0x3e)) {
            i++; // REX, notrack
        }
        if (i + 7 > end || (b[i] & 0xff) != 0xff) {
            return -1;
        }
        int modrm = b[i + 1] & 0xff;
        int sib = b[i + 2] & 0xff;
        if ((modrm & 0xc7) != 0x04 || (sib & 0xc7) != 0xc5) {
            return -1; // not mod 00, SIB, no base, scale 8
        }
        return (b[i + 3] & 0xff) | (b[i + 4] & 0xff) << 8 | (b[i + 5] & 0xff) << 16 | (long) b[i + 6] << 24;
    }

    /**
     * The CFG of the function whose bytes are {@code code[base, base + size)}, with the offsets where
     * other code enters it (and, here, jump-table targets) and its landing pads; null if it has none.
     * Labels given as entries are also marked as entry points; for jump-table targets that only
     * matters to traces entered from outside the function (see RiscVCfg.fallthroughs).
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
                case RETURN, INDIRECT_JUMP -> RiscVCfg.STOP;
                case TRAP -> RiscVCfg.TRAP;
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
