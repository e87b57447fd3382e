package dev.splice.cfg.x86;

/**
 * An x86-64 (64-bit mode) instruction length decoder with the branch classification BOLT's CFG
 * needs: how long the instruction at an offset is, and whether it is a direct (conditional or
 * unconditional) branch, a call, a return, an indirect jump or call, or a trap. It decodes legacy
 * prefixes, REX, the one-byte and 0F/0F38/0F3A opcode maps, ModRM/SIB/displacements, immediates,
 * VEX (C4/C5) and EVEX (62); it does not check that an encoding is defined beyond what its length
 * needs. Lives in bat because bat may not depend on the isa package (which is RISC-V only).
 */
final class X86Lengths {
    private X86Lengths() {}

    /** What the instruction does to control flow. */
    enum Kind {
        /** Falls through to the next instruction. */
        OTHER,
        /**
         * jcc rel8/rel32, xbegin rel32: may branch to {@code target} or fall through (BOLT gives
         * xbegin both successors, as llvm-bolt-22 --print-cfg shows).
         */
        CONDITIONAL,
        /**
         * jrcxz/jecxz/loop/loope/loopne rel8: conditional too, but llvm-bolt-22 "could not
         * disassemble" a function holding one, so such a function has no CFG in perf2bolt.
         */
        LOOP,
        /** jmp rel8/rel32 to {@code target}. */
        JUMP,
        /** call rel32 to {@code target}. */
        CALL,
        /** ret, ret imm16 (near). */
        RETURN,
        /** jmp through a register or memory (FF /4). */
        INDIRECT_JUMP,
        /** call through a register or memory (FF /2). */
        INDIRECT_CALL,
        /** ud2, hlt: BOLT ends the block and does not fall through (llvm-bolt-22 --print-cfg). */
        TRAP,
        /** int3: not a terminator for BOLT, which falls through it (llvm-bolt-22 --print-cfg). */
        BREAKPOINT
    }

    /**
     * One decoded instruction: its length in bytes, its kind, and for direct branches and calls the
     * displacement from the end of the instruction to the target (0 otherwise).
     */
    record Insn(int length, Kind kind, long displacement) {
        /** The branch target given the instruction's own address (direct branches and calls only). */
        long target(long address) {
            return address + length + displacement;
        }
    }

    // One-byte map operand shapes.
    private static final byte NONE = 0, MODRM = 1, IMM8 = 2, IMMZ = 3, MODRM_IMM8 = 4, MODRM_IMMZ = 5,
            REL8 = 6, REL32 = 7, INVALID = 8, SPECIAL = 9;

    private static final byte[] ONE = new byte[256];
    private static final byte[] TWO = new byte[256];

    static {
        for (int op = 0; op < 0x40; op += 8) {
            ONE[op] = ONE[op + 1] = ONE[op + 2] = ONE[op + 3] = MODRM;
            ONE[op + 4] = IMM8;
            ONE[op + 5] = IMMZ;
            ONE[op + 6] = ONE[op + 7] = INVALID; // push/pop seg, daa/das/aaa/aas; 26/2E/36/3E are prefixes
        }
        ONE[0x0f] = SPECIAL;
        ONE[0x60] = ONE[0x61] = ONE[0x82] = ONE[0x9a] = ONE[0xce] = ONE[0xd4] = ONE[0xd5] = ONE[0xd6] = ONE[0xea] = INVALID;
        ONE[0x62] = ONE[0xc4] = ONE[0xc5] = SPECIAL; // EVEX, VEX
        ONE[0x63] = MODRM;
        ONE[0x68] = IMMZ;
        ONE[0x69] = MODRM_IMMZ;
        ONE[0x6a] = IMM8;
        ONE[0x6b] = MODRM_IMM8;
        for (int op = 0x70; op <= 0x7f; op++) {
            ONE[op] = REL8;
        }
        ONE[0x80] = ONE[0x83] = MODRM_IMM8;
        ONE[0x81] = MODRM_IMMZ;
        for (int op = 0x84; op <= 0x8f; op++) {
            ONE[op] = MODRM;
        }
        ONE[0xa0] = ONE[0xa1] = ONE[0xa2] = ONE[0xa3] = SPECIAL; // moffs
        ONE[0xa8] = IMM8;
        ONE[0xa9] = IMMZ;
        for (int op = 0xb0; op <= 0xb7; op++) {
            ONE[op] = IMM8;
        }
        for (int op = 0xb8; op <= 0xbf; op++) {
            ONE[op] = SPECIAL; // imm16/32/64
        }
        ONE[0xc0] = ONE[0xc1] = ONE[0xc6] = MODRM_IMM8;
        ONE[0xc7] = MODRM_IMMZ;
        ONE[0xc2] = ONE[0xca] = SPECIAL; // imm16
        ONE[0xc8] = SPECIAL; // enter imm16, imm8
        ONE[0xcd] = IMM8;
        for (int op = 0xd0; op <= 0xd3; op++) {
            ONE[op] = MODRM;
        }
        for (int op = 0xd8; op <= 0xdf; op++) {
            ONE[op] = MODRM;
        }
        ONE[0xe0] = ONE[0xe1] = ONE[0xe2] = ONE[0xe3] = REL8;
        ONE[0xe4] = ONE[0xe5] = ONE[0xe6] = ONE[0xe7] = IMM8;
        ONE[0xe8] = ONE[0xe9] = REL32;
        ONE[0xeb] = REL8;
        ONE[0xf6] = ONE[0xf7] = SPECIAL; // test has an immediate, the others do not
        ONE[0xfe] = ONE[0xff] = MODRM;

        // 0F map: ModRM unless listed otherwise.
        for (int op = 0; op < 256; op++) {
            TWO[op] = MODRM;
        }
        for (int op : new int[] {0x05, 0x06, 0x07, 0x08, 0x09, 0x0b, 0x0e, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x37,
                0x77, 0xa0, 0xa1, 0xa2, 0xa8, 0xa9, 0xaa}) {
            TWO[op] = NONE;
        }
        for (int op = 0xc8; op <= 0xcf; op++) {
            TWO[op] = NONE; // bswap
        }
        for (int op : new int[] {0x04, 0x0a, 0x0c, 0x24, 0x25, 0x26, 0x27, 0x36, 0x39, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f}) {
            TWO[op] = INVALID;
        }
        for (int op = 0x80; op <= 0x8f; op++) {
            TWO[op] = REL32;
        }
        for (int op : new int[] {0x0f, 0x70, 0x71, 0x72, 0x73, 0xa4, 0xac, 0xba, 0xc2, 0xc4, 0xc5, 0xc6}) {
            TWO[op] = MODRM_IMM8;
        }
        TWO[0x38] = TWO[0x3a] = SPECIAL;
    }

    /**
     * Whether a legacy-encoded opcode of the one-byte map (0) or the 0F map (1) has a ModRM byte;
     * the 0F38 and 0F3A maps always do. (For {@link X86Operands}, from the same tables.)
     */
    static boolean hasModrm(int map, int op) {
        if (map == 0) {
            byte shape = ONE[op & 0xff];
            return shape == MODRM || shape == MODRM_IMM8 || shape == MODRM_IMMZ || op == 0xf6 || op == 0xf7;
        }
        if (map == 1) {
            byte shape = TWO[op & 0xff];
            return shape == MODRM || shape == MODRM_IMM8;
        }
        return true;
    }

    /**
     * Decodes the instruction at {@code at}, which must end by {@code end}; null if the bytes there
     * are not a valid (or not a complete) instruction.
     */
    static Insn decode(byte[] b, int at, int end) {
        end = Math.min(end, b.length);
        int limit = Math.min(end, at + 15);
        int i = at;
        boolean opsize = false;
        boolean addrsize = false;
        boolean rexW = false;
        // Legacy prefixes, then an optional REX immediately before the opcode.
        while (true) {
            if (i >= limit) {
                return null;
            }
            int p = b[i] & 0xff;
            if (isPrefixInstruction(b, at, i, limit)) {
                return new Insn(i + 1 - at, Kind.OTHER, 0);
            }
            if (p == 0x66) {
                opsize = true;
            } else if (p == 0x67) {
                addrsize = true;
            } else if (p != 0xf0 && p != 0xf2 && p != 0xf3 && p != 0x2e && p != 0x36 && p != 0x3e && p != 0x26
                    && p != 0x64 && p != 0x65) {
                break;
            }
            i++;
        }
        int rexAt = -1;
        while (i < limit && (b[i] & 0xf0) == 0x40) {
            rexAt = i; // only the last REX counts
            rexW = (b[i] & 0x08) != 0;
            i++;
        }
        if (i >= limit) {
            return null;
        }
        int op = b[i++] & 0xff;
        int immz = opsize ? 2 : 4;
        switch (op) {
            case 0x0f:
                return twoByte(b, at, i, limit, opsize, rexW);
            case 0xc4:
            case 0xc5:
                if (rexAt >= 0) {
                    return null; // REX before VEX is invalid
                }
                return vex(b, at, i, limit, op == 0xc5);
            case 0x62:
                if (rexAt >= 0) {
                    return null;
                }
                return evex(b, at, i, limit);
            default:
                break;
        }
        int shape = ONE[op];
        switch (shape) {
            case NONE: {
                Kind kind = Kind.OTHER;
                if (op == 0xc3) {
                    kind = Kind.RETURN;
                } else if (op == 0xf4) {
                    kind = Kind.TRAP;
                } else if (op == 0xcc) {
                    kind = Kind.BREAKPOINT;
                }
                return insn(at, i, limit, kind, 0);
            }
            case MODRM:
                return modrm(b, at, i, limit, addrsize, 0, op == 0xff ? ffKind(b, i) : Kind.OTHER);
            case IMM8:
                return insn(at, i + 1, limit, Kind.OTHER, 0);
            case IMMZ:
                return insn(at, i + immz, limit, Kind.OTHER, 0);
            case MODRM_IMM8:
                return modrm(b, at, i, limit, addrsize, 1, Kind.OTHER);
            case MODRM_IMMZ:
                if (op == 0xc7 && i < limit && (b[i] & 0xff) == 0xf8) {
                    // xbegin rel16/32: a branch to the abort handler, or fall through
                    return rel(b, at, i + 1, limit, immz, Kind.CONDITIONAL);
                }
                return modrm(b, at, i, limit, addrsize, immz, Kind.OTHER);
            case REL8:
                return rel(b, at, i, limit, 1, op == 0xeb ? Kind.JUMP : op >= 0xe0 ? Kind.LOOP : Kind.CONDITIONAL);
            case REL32:
                // Near branches take a 32-bit displacement in 64-bit mode, even after 66 (as Intel and LLVM do).
                return rel(b, at, i, limit, 4, op == 0xe8 ? Kind.CALL : Kind.JUMP);
            case SPECIAL:
                if (op >= 0xa0 && op <= 0xa3) {
                    return insn(at, i + (addrsize ? 4 : 8), limit, Kind.OTHER, 0);
                }
                if (op >= 0xb8 && op <= 0xbf) {
                    return insn(at, i + (rexW ? 8 : immz), limit, Kind.OTHER, 0);
                }
                if (op == 0xc2) {
                    return insn(at, i + 2, limit, Kind.RETURN, 0);
                }
                if (op == 0xca) {
                    return insn(at, i + 2, limit, Kind.OTHER, 0);
                }
                if (op == 0xc8) {
                    return insn(at, i + 3, limit, Kind.OTHER, 0);
                }
                if (op == 0xf6 || op == 0xf7) {
                    if (i >= limit) {
                        return null;
                    }
                    int reg = (b[i] >> 3) & 7;
                    int imm = reg <= 1 ? (op == 0xf6 ? 1 : immz) : 0;
                    return modrm(b, at, i, limit, addrsize, imm, Kind.OTHER);
                }
                return null;
            default:
                return null;
        }
    }

    /**
     * Whether LLVM's disassembler (and so BOLT) ends an instruction after the prefix at {@code i}:
     * a lock that starts the instruction is an instruction of its own, and so is an F2/F3 that
     * LLVM reads as xacquire/xrelease (before lock, xchg, nop other than pause, and for F3 before
     * mov to memory). Found with llvm-mc-22 and llvm-objdump-22 on glibc.
     */
    private static boolean isPrefixInstruction(byte[] b, int at, int i, int limit) {
        int p = b[i] & 0xff;
        if (p == 0xf0) {
            return i == at;
        }
        if ((p != 0xf2 && p != 0xf3) || i + 1 >= limit) {
            return false;
        }
        int next = b[i + 1] & 0xff;
        if (next == 0xf0 || (next & 0xfe) == 0x86 || ((next & 0xf8) == 0x90 && !(p == 0xf3 && next == 0x90))) {
            return true;
        }
        return p == 0xf3 && (next == 0x88 || next == 0x89 || next == 0xc6 || next == 0xc7);
    }

    private static Kind ffKind(byte[] b, int modrmAt) {
        if (modrmAt >= b.length) {
            return Kind.OTHER;
        }
        int reg = (b[modrmAt] >> 3) & 7;
        return reg == 4 ? Kind.INDIRECT_JUMP : reg == 2 ? Kind.INDIRECT_CALL : Kind.OTHER;
    }

    private static Insn twoByte(byte[] b, int at, int i, int limit, boolean opsize, boolean rexW) {
        if (i >= limit) {
            return null;
        }
        int op = b[i++] & 0xff;
        switch (TWO[op]) {
            case NONE:
                return insn(at, i, limit, op == 0x0b ? Kind.TRAP : Kind.OTHER, 0);
            case MODRM:
                return modrm(b, at, i, limit, addrsize(b, at), 0, Kind.OTHER);
            case MODRM_IMM8:
                return modrm(b, at, i, limit, addrsize(b, at), 1, Kind.OTHER);
            case REL32:
                return rel(b, at, i, limit, 4, Kind.CONDITIONAL);
            case SPECIAL: {
                if (i >= limit) {
                    return null;
                }
                i++; // the third opcode byte
                return modrm(b, at, i, limit, addrsize(b, at), op == 0x3a ? 1 : 0, Kind.OTHER);
            }
            default:
                return null;
        }
    }

    /** Whether the legacy prefixes before the opcode at {@code at} include 67. */
    private static boolean addrsize(byte[] b, int at) {
        for (int i = at; i < b.length && i < at + 15; i++) {
            int p = b[i] & 0xff;
            if (p == 0x67) {
                return true;
            }
            if (p != 0x66 && p != 0xf0 && p != 0xf2 && p != 0xf3 && p != 0x2e && p != 0x36 && p != 0x3e && p != 0x26
                    && p != 0x64 && p != 0x65) {
                return false;
            }
        }
        return false;
    }

    /** VEX: C5 (2 bytes, map 0F) or C4 (3 bytes, map from mmmmm), then opcode, ModRM, maybe imm8. */
    private static Insn vex(byte[] b, int at, int i, int limit, boolean twoByteVex) {
        int map;
        if (twoByteVex) {
            map = 1;
            i += 1;
        } else {
            if (i >= limit) {
                return null;
            }
            map = b[i] & 0x1f;
            i += 2;
        }
        if (i >= limit || map < 1 || map > 3) {
            return null;
        }
        int op = b[i++] & 0xff;
        if (map == 1 && op == 0x77) {
            return insn(at, i, limit, Kind.OTHER, 0); // vzeroupper, vzeroall
        }
        return modrm(b, at, i, limit, addrsize(b, at), vexImm8(map, op) ? 1 : 0, Kind.OTHER);
    }

    /** EVEX: 62 and three payload bytes, opcode, ModRM, maybe imm8. */
    private static Insn evex(byte[] b, int at, int i, int limit) {
        if (i + 3 >= limit) {
            return null;
        }
        int map = b[i] & 0x07;
        i += 3;
        int op = b[i++] & 0xff;
        if (map < 1 || map > 6 || map == 4) {
            return null;
        }
        return modrm(b, at, i, limit, addrsize(b, at), vexImm8(map, op) ? 1 : 0, Kind.OTHER);
    }

    private static boolean vexImm8(int map, int op) {
        return map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6)));
    }

    /** ModRM at {@code i}, then SIB and displacement, then {@code imm} immediate bytes. */
    private static Insn modrm(byte[] b, int at, int i, int limit, boolean addrsize, int imm, Kind kind) {
        if (i >= limit) {
            return null;
        }
        int m = b[i++] & 0xff;
        int mod = m >> 6;
        int rm = m & 7;
        if (mod != 3) {
            if (rm == 4) {
                if (i >= limit) {
                    return null;
                }
                int sib = b[i++] & 0xff;
                if (mod == 0 && (sib & 7) == 5) {
                    i += 4;
                }
            } else if (mod == 0 && rm == 5) {
                i += 4; // RIP-relative
            }
            if (mod == 1) {
                i += 1;
            } else if (mod == 2) {
                i += 4;
            }
        }
        return insn(at, i + imm, limit, kind, 0);
    }

    private static Insn rel(byte[] b, int at, int i, int limit, int size, Kind kind) {
        if (i + size > limit) {
            return null;
        }
        long disp = switch (size) {
            case 1 -> b[i];
            case 2 -> (short) ((b[i] & 0xff) | (b[i + 1] & 0xff) << 8);
            default -> (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | b[i + 3] << 24;
        };
        return new Insn(i + size - at, kind, disp);
    }

    private static Insn insn(int at, int next, int limit, Kind kind, long disp) {
        return next > limit ? null : new Insn(next - at, kind, disp);
    }
}
