package dev.splice.cfg.x86;

/**
 * The operands of one x86-64 instruction that BOLT's indirect-branch analysis looks at
 * (X86MCPlusBuilder::analyzeIndirectBranch): the opcode, ModRM registers, the memory operand, and
 * which general-purpose registers the instruction writes (explicitly or implicitly, as LLVM's
 * MCInstrDesc::hasDefOfPhysReg sees them, any width of a register counting as the register). The
 * instruction's length comes from {@link X86Lengths}; this only reads fields inside it.
 */
final class X86Operands {
    static final int RAX = 0, RCX = 1, RDX = 2, RBX = 3, RSP = 4, RBP = 5, RSI = 6, RDI = 7, R11 = 11;
    /** A memory operand's base register when it is %rip. */
    static final int RIP = 16;
    /** No register. */
    static final int NO_REGISTER = -1;

    /** Opcode map: 0 one-byte, 1 0F, 2 0F38, 3 0F3A (and higher EVEX maps as encoded). */
    final int map;
    final int opcode;
    /** 0 legacy, 1 VEX, 2 EVEX. */
    final int encoding;
    final boolean rexW;
    final boolean operandSize16;
    /** 0, 0xF2 or 0xF3 (VEX/EVEX: from pp). */
    final int repeat;
    final boolean hasRex;
    final boolean fsOrGs;
    final boolean hasModrm;
    final int mod;
    /** ModRM.reg with REX.R (VEX/EVEX: inverted R). */
    final int reg;
    /** ModRM.rm with REX.B when mod == 3. */
    final int rm;
    /** ModRM.reg without extension (the /digit of group opcodes). */
    final int digit;
    /** VEX/EVEX vvvv, else -1. */
    final int vvvv;
    /** The memory operand (mod != 3): base (RIP, NO_REGISTER or 0-15), index, scale, displacement. */
    final int base;
    final int index;
    final int scale;
    final long displacement;
    /** The register in the low three opcode bits (with REX.B), for 50-5F, 90-97, B0-BF, 0F C8-CF. */
    final int opcodeRegister;
    private final int rex;

    private X86Operands(byte[] b, int at, int length) {
        int end = at + length;
        int i = at;
        int rep = 0;
        boolean o16 = false;
        boolean seg = false;
        while (i < end) {
            int x = b[i] & 0xff;
            if (x == 0xf2 || x == 0xf3) {
                rep = x;
            } else if (x == 0x66) {
                o16 = true;
            } else if (x == 0x64 || x == 0x65) {
                seg = true;
            } else if (!(x == 0x26 || x == 0x2e || x == 0x36 || x == 0x3e || x == 0x67 || x == 0xf0)) {
                break;
            }
            i++;
        }
        int rexByte = 0;
        if (i < end && (b[i] & 0xf0) == 0x40) {
            rexByte = b[i] & 0xff;
            i++;
        }
        int enc = 0;
        int m = 0;
        int v = -1;
        boolean w = (rexByte & 8) != 0;
        int rBit = (rexByte >> 2) & 1;
        int bBit = rexByte & 1;
        int xBit = (rexByte >> 1) & 1;
        int first = i < end ? b[i] & 0xff : -1;
        if (first == 0xc4 && i + 2 < end) {
            int p1 = b[i + 1] & 0xff;
            int p2 = b[i + 2] & 0xff;
            enc = 1;
            rBit = (~p1 >> 7) & 1;
            xBit = (~p1 >> 6) & 1;
            bBit = (~p1 >> 5) & 1;
            m = p1 & 0x1f;
            w = (p2 & 0x80) != 0;
            v = (~p2 >> 3) & 15;
            rep = pp(p2 & 3);
            o16 = (p2 & 3) == 1;
            i += 3;
        } else if (first == 0xc5 && i + 1 < end) {
            int p1 = b[i + 1] & 0xff;
            enc = 1;
            rBit = (~p1 >> 7) & 1;
            m = 1;
            v = (~p1 >> 3) & 15;
            rep = pp(p1 & 3);
            o16 = (p1 & 3) == 1;
            i += 2;
        } else if (first == 0x62 && i + 3 < end) {
            int p0 = b[i + 1] & 0xff;
            int p1 = b[i + 2] & 0xff;
            enc = 2;
            rBit = (~p0 >> 7) & 1;
            xBit = (~p0 >> 6) & 1;
            bBit = (~p0 >> 5) & 1;
            m = p0 & 7;
            w = (p1 & 0x80) != 0;
            v = (~p1 >> 3) & 15;
            rep = pp(p1 & 3);
            o16 = (p1 & 3) == 1;
            i += 4;
        } else if (first == 0x0f && i + 1 < end) {
            int second = b[i + 1] & 0xff;
            if (second == 0x38 || second == 0x3a) {
                m = second == 0x38 ? 2 : 3;
                i += 2;
            } else {
                m = 1;
                i += 1;
            }
        }
        this.encoding = enc;
        this.map = m;
        this.opcode = i < end ? b[i] & 0xff : -1;
        this.rex = rexByte;
        this.hasRex = rexByte != 0;
        this.rexW = w;
        this.operandSize16 = o16;
        this.repeat = rep;
        this.fsOrGs = seg;
        this.vvvv = v;
        this.opcodeRegister = (opcode & 7) | bBit << 3;
        i++;
        boolean modrm = hasModrm(enc, m, opcode) && i < end;
        this.hasModrm = modrm;
        int md = 0, rg = 0, r = 0, dg = 0, bs = NO_REGISTER, ix = NO_REGISTER, sc = 1;
        long disp = 0;
        if (modrm) {
            int x = b[i++] & 0xff;
            md = x >> 6;
            dg = (x >> 3) & 7;
            rg = dg | rBit << 3;
            int low = x & 7;
            r = low | bBit << 3;
            if (md != 3) {
                int dispSize = md == 1 ? 1 : md == 2 ? 4 : 0;
                if (low == 4 && i < end) {
                    int sib = b[i++] & 0xff;
                    sc = 1 << (sib >> 6);
                    int idx = ((sib >> 3) & 7) | xBit << 3;
                    ix = idx == 4 ? NO_REGISTER : idx;
                    int sb = sib & 7;
                    if (sb == 5 && md == 0) {
                        bs = NO_REGISTER;
                        dispSize = 4;
                    } else {
                        bs = sb | bBit << 3;
                    }
                } else if (low == 5 && md == 0) {
                    bs = RIP;
                    dispSize = 4;
                } else {
                    bs = r;
                }
                if (i + dispSize <= end) {
                    if (dispSize == 1) {
                        disp = b[i];
                    } else if (dispSize == 4) {
                        disp = (b[i] & 0xff) | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff) << 16 | b[i + 3] << 24;
                    }
                }
            }
        }
        this.mod = md;
        this.reg = rg;
        this.rm = r;
        this.digit = dg;
        this.base = bs;
        this.index = ix;
        this.scale = sc;
        this.displacement = disp;
    }

    private static int pp(int bits) {
        return bits == 2 ? 0xf3 : bits == 3 ? 0xf2 : 0;
    }

    /** Parses the instruction of {@code length} bytes at {@code at} (a length X86Lengths gave). */
    static X86Operands of(byte[] b, int at, int length) {
        return new X86Operands(b, at, length);
    }

    private static boolean hasModrm(int encoding, int map, int op) {
        if (encoding != 0) {
            return !(map == 1 && op == 0x77); // vzeroupper/vzeroall
        }
        return X86Lengths.hasModrm(map, op);
    }

    /** Whether there is a memory operand. */
    boolean hasMemory() {
        return hasModrm && mod != 3;
    }

    /** The rm register (mod == 3) of a byte operation: without REX, 4-7 are AH/CH/DH/BH. */
    private int byteRm() {
        return !hasRex && rm >= 4 && rm < 8 ? rm - 4 : rm;
    }

    private int byteReg() {
        return !hasRex && reg >= 4 && reg < 8 ? reg - 4 : reg;
    }

    private static int bit(int register) {
        return 1 << register;
    }

    private int rmIfRegister(boolean byteOperation) {
        return mod == 3 ? bit(byteOperation ? byteRm() : rm) : 0;
    }

    /**
     * The general-purpose registers (bit n: register n, any width) the instruction writes. Covers
     * the instructions compilers emit; vector and x87 instructions write none unless they move to a
     * general-purpose register.
     */
    int writes() {
        if (encoding == 1) {
            return vexWrites();
        }
        if (encoding == 2) {
            return evexWrites();
        }
        return switch (map) {
            case 0 -> oneByteWrites();
            case 1 -> twoByteWrites();
            case 2 -> (opcode == 0xf0 && repeat != 0xf2) || ((opcode == 0xf0 || opcode == 0xf1) && repeat == 0xf2)
                    || (opcode == 0xf6 && (operandSize16 || repeat == 0xf3)) ? bit(reg) : 0; // movbe, crc32, adcx/adox
            case 3 -> (opcode >= 0x14 && opcode <= 0x17) ? rmIfRegister(false)
                    : (opcode == 0x61 || opcode == 0x63) ? bit(RCX) : 0; // pextr*, extractps; pcmp*stri
            default -> 0;
        };
    }

    private int stringWrites(int registers) {
        return registers | (repeat != 0 ? bit(RCX) : 0);
    }

    private int oneByteWrites() {
        int op = opcode;
        if (op < 0x40 && (op & 7) < 6) {
            if ((op >> 3) == 7) {
                return 0; // cmp
            }
            return switch (op & 7) {
                case 0, 1 -> rmIfRegister((op & 7) == 0);
                case 2 -> bit(byteReg());
                case 3 -> bit(reg);
                default -> bit(RAX);
            };
        }
        if (op >= 0x50 && op <= 0x57) {
            return bit(RSP);
        }
        if (op >= 0x58 && op <= 0x5f) {
            return bit(RSP) | bit(opcodeRegister);
        }
        if (op >= 0x91 && op <= 0x97) {
            return bit(RAX) | bit(opcodeRegister);
        }
        if (op >= 0xb0 && op <= 0xb7) {
            return bit(!hasRex && opcodeRegister >= 4 && opcodeRegister < 8 ? opcodeRegister - 4 : opcodeRegister);
        }
        if (op >= 0xb8 && op <= 0xbf) {
            return bit(opcodeRegister);
        }
        return switch (op) {
            case 0x63, 0x69, 0x6b, 0x8b, 0x8d -> bit(reg);
            case 0x8a -> bit(byteReg());
            case 0x68, 0x6a, 0x9c, 0x9d, 0xc2, 0xc3, 0xca, 0xcb, 0xcf, 0xe8 -> bit(RSP);
            case 0x6c, 0x6d -> stringWrites(bit(RDI));
            case 0x6e, 0x6f -> stringWrites(bit(RSI));
            case 0x80, 0x81, 0x82, 0x83 -> digit == 7 ? 0 : rmIfRegister(op == 0x80 || op == 0x82);
            case 0x86, 0x87 -> (op == 0x86 ? bit(byteReg()) : bit(reg)) | rmIfRegister(op == 0x86);
            case 0x88, 0x89, 0x8c -> rmIfRegister(op == 0x88);
            case 0x8f -> bit(RSP) | rmIfRegister(false);
            case 0x90 -> (rex & 1) != 0 ? bit(RAX) | bit(opcodeRegister) : 0; // xchg %r8,%rax; else nop/pause
            case 0x98, 0x9f, 0xa0, 0xa1, 0xd7, 0xe4, 0xe5, 0xec, 0xed -> bit(RAX);
            case 0x99 -> bit(RDX);
            case 0xa4, 0xa5, 0xa6, 0xa7 -> stringWrites(bit(RSI) | bit(RDI));
            case 0xaa, 0xab, 0xae, 0xaf -> stringWrites(bit(RDI));
            case 0xac, 0xad -> stringWrites(bit(RAX) | bit(RSI));
            case 0xc0, 0xc1, 0xd0, 0xd1, 0xd2, 0xd3 -> rmIfRegister(op == 0xc0 || op == 0xd0 || op == 0xd2);
            case 0xc6 -> digit == 0 ? rmIfRegister(true) : 0;
            case 0xc7 -> digit == 0 ? rmIfRegister(false) : (mod == 3 && digit == 7) ? bit(RAX) : 0; // mov; xbegin
            case 0xc8, 0xc9 -> bit(RSP) | bit(RBP);
            case 0xdf -> mod == 3 && digit == 4 ? bit(RAX) : 0; // fnstsw %ax
            case 0xf6, 0xf7 -> switch (digit) {
                case 2, 3 -> rmIfRegister(op == 0xf6);
                case 4, 5, 6, 7 -> bit(RAX) | (op == 0xf7 ? bit(RDX) : 0);
                default -> 0;
            };
            case 0xfe -> digit <= 1 ? rmIfRegister(true) : 0;
            case 0xff -> digit <= 1 ? rmIfRegister(false) : (digit == 2 || digit == 3 || digit == 6) ? bit(RSP) : 0;
            default -> 0;
        };
    }

    private int twoByteWrites() {
        int op = opcode;
        if (op >= 0x40 && op <= 0x4f) {
            return bit(reg); // cmov
        }
        if (op >= 0x90 && op <= 0x9f) {
            return rmIfRegister(true); // setcc
        }
        if (op >= 0xc8 && op <= 0xcf) {
            return bit(opcodeRegister); // bswap
        }
        return switch (op) {
            case 0x00 -> digit <= 1 ? rmIfRegister(false) : 0; // sldt, str
            case 0x01 -> mod == 3 && digit == 2 && rm % 8 == 0 ? bit(RAX) | bit(RDX) // xgetbv
                    : mod == 3 && digit == 7 && rm % 8 == 1 ? bit(RAX) | bit(RDX) | bit(RCX) : 0; // rdtscp
            case 0x02, 0x03, 0xaf, 0xb6, 0xb7, 0xbc, 0xbd, 0xbe, 0xbf, 0xd7 -> bit(reg);
            case 0x05 -> bit(RCX) | bit(R11); // syscall
            case 0x20, 0x21 -> bit(rm);
            case 0x2c, 0x2d -> repeat != 0 ? bit(reg) : 0; // cvt(t)ss/sd2si; without F2/F3 to an MMX register
            case 0x31, 0x32, 0x33 -> bit(RAX) | bit(RDX);
            case 0x50 -> repeat == 0 ? bit(reg) : 0; // movmskps/pd
            case 0x7e -> repeat == 0 ? rmIfRegister(false) : 0; // movd/movq to r/m
            case 0xa0, 0xa1, 0xa8, 0xa9 -> bit(RSP);
            case 0xa2 -> bit(RAX) | bit(RBX) | bit(RCX) | bit(RDX);
            case 0xa4, 0xa5, 0xab, 0xac, 0xad, 0xb3, 0xbb -> rmIfRegister(false);
            case 0xae -> repeat == 0xf3 && mod == 3 && digit <= 1 ? rmIfRegister(false) : 0; // rdfsbase/rdgsbase
            case 0xb0, 0xb1 -> bit(RAX) | rmIfRegister(op == 0xb0);
            case 0xb8 -> repeat == 0xf3 ? bit(reg) : 0; // popcnt
            case 0xba -> digit >= 5 ? rmIfRegister(false) : 0;
            case 0xc0, 0xc1 -> (op == 0xc0 ? bit(byteReg()) : bit(reg)) | rmIfRegister(op == 0xc0);
            case 0xc5 -> bit(reg); // pextrw
            case 0xc7 -> digit == 1 && mod != 3 ? bit(RAX) | bit(RDX) : (mod == 3 && digit >= 6) ? rmIfRegister(false) : 0;
            default -> 0;
        };
    }

    private int vexWrites() {
        int op = opcode;
        if (map == 1) {
            return switch (op) {
                case 0x7e -> operandSize16 ? rmIfRegister(false) : 0;
                case 0x50, 0xd7, 0xc5 -> bit(reg);
                case 0x2c, 0x2d -> repeat != 0 ? bit(reg) : 0;
                case 0x93 -> bit(reg); // kmov to a general register
                default -> 0;
            };
        }
        if (map == 2) {
            return switch (op) {
                case 0xf2, 0xf5, 0xf7 -> bit(reg); // andn; bzhi/pdep/pext; bextr/shlx/sarx/shrx
                case 0xf3 -> digit >= 1 && digit <= 3 ? bit(vvvv) : 0; // blsr, blsmsk, blsi
                case 0xf6 -> repeat == 0xf2 ? bit(reg) | bit(vvvv) : 0; // mulx
                default -> 0;
            };
        }
        if (map == 3) {
            return switch (op) {
                case 0x14, 0x15, 0x16, 0x17 -> rmIfRegister(false);
                case 0xf0 -> bit(reg); // rorx
                case 0x61, 0x63 -> bit(RCX);
                default -> 0;
            };
        }
        return 0;
    }

    private int evexWrites() {
        int op = opcode;
        if (map == 1 || map == 5) {
            return switch (op) {
                case 0x7e -> operandSize16 ? rmIfRegister(false) : 0;
                case 0x2c, 0x2d, 0x78, 0x79 -> repeat != 0 ? bit(reg) : 0;
                case 0xc5 -> map == 1 ? bit(reg) : 0;
                default -> 0;
            };
        }
        if (map == 3) {
            return op >= 0x14 && op <= 0x17 ? rmIfRegister(false) : 0;
        }
        return 0;
    }

    /** Whether it writes register {@code r} (0-15). */
    boolean writes(int r) {
        return (writes() & (1 << r)) != 0;
    }

    /** mov r/m, r with a memory source: LLVM's MOV16rm, MOV32rm, MOV64rm (8B /r). */
    boolean isMoveMemoryToRegister() {
        return encoding == 0 && map == 0 && opcode == 0x8b && hasMemory();
    }

    /** add %r2, %r1 in the 01 /r register form (LLVM's ADD64rr; the 03 /r form is ADD64rr_REV). */
    boolean isAdd64RegisterRegister() {
        return encoding == 0 && map == 0 && opcode == 0x01 && rexW && mod == 3;
    }

    /** movslq mem, %r (MOVSX64rm32). */
    boolean isMovsx64FromMemory32() {
        return encoding == 0 && map == 0 && opcode == 0x63 && rexW && hasMemory();
    }

    /** lea mem, %r64 (LEA64r). */
    boolean isLea64() {
        return encoding == 0 && map == 0 && opcode == 0x8d && rexW && hasMemory() && !operandSize16;
    }

    /** pop (any form) or leave: BOLT's isPop/isLeave, which make a block look like an epilogue. */
    boolean isPopOrLeave() {
        if (encoding != 0) {
            return false;
        }
        if (map == 0) {
            return (opcode >= 0x58 && opcode <= 0x5f) || opcode == 0x8f || opcode == 0x9d || opcode == 0xc9;
        }
        return map == 1 && (opcode == 0xa1 || opcode == 0xa9);
    }

    /** For jmp/call through a register (FF /4 with mod 3): the register; else NO_REGISTER. */
    int jumpRegister() {
        return mod == 3 ? rm : NO_REGISTER;
    }
}
