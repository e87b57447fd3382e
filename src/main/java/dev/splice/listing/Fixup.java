package dev.splice.listing;

/**
 * A place in an assembled region whose bytes depend on where the region lands or on the value of
 * a name defined outside the text: a pc-relative use of an external name or of an absolute
 * address, or an absolute use of any name. {@link Assembly#relocate} re-encodes these places for
 * another address and other symbol values without assembling again.
 *
 * <p>The value a fixup encodes is {@code V = S + addend}, where {@code S} is the symbol's value (0
 * when {@code symbol} is null: an absolute address; the region's address when it is
 * {@link #REGION}: a label of the text itself, used as an absolute value). Pc-relative kinds
 * encode {@code V - P}, {@code P} being the address of the instruction at {@code offset} (for the
 * {@code PCREL_LO12} kinds: of the auipc at {@code anchor}).
 *
 * @param region the index of the region in {@link Assembly#regions()}
 * @param offset the byte offset of the instruction or data word in the region
 * @param kind how the value is encoded
 * @param symbol the external name, {@link #REGION}, or null for an absolute value
 * @param addend the constant added to the symbol's value (the address itself when {@code symbol} is null)
 * @param anchor for {@code PCREL_LO12_I}/{@code PCREL_LO12_S}: the offset of the auipc whose
 *     upper part this completes; otherwise {@code offset}
 * @param line the source line, for error messages
 * @param column the source column, for error messages
 */
public record Fixup(int region, int offset, Kind kind, String symbol, long addend, int anchor, int line, int column) {
    /** The symbol name that stands for the address of the fixup's own region. */
    public static final String REGION = ".";

    /** How a fixup's value is encoded; the names are those of the RISC-V ELF psABI relocations. */
    public enum Kind {
        /** auipc: the upper 20 bits of {@code V - P}, rounded for the signed low part (+-2 GiB). */
        PCREL_HI20(4),
        /** An I-type low 12 bits (addi, loads, jalr) completing the auipc at {@code anchor}. */
        PCREL_LO12_I(4),
        /** An S-type low 12 bits (stores) completing the auipc at {@code anchor}. */
        PCREL_LO12_S(4),
        /** auipc + jalr (call, tail): {@code V - P} over both instructions (+-2 GiB). */
        CALL(8),
        /** lui: the upper 20 bits of {@code V}, rounded for the signed low part. */
        HI20(4),
        /** An I-type low 12 bits of {@code V}. */
        LO12_I(4),
        /** An S-type low 12 bits of {@code V}. */
        LO12_S(4),
        /** A 64-bit data word holding {@code V}. */
        ABS64(8),
        /** A 32-bit data word holding {@code V} (which must fit, signed or unsigned). */
        ABS32(4),
        /** A conditional branch (B-type): {@code V - P} within +-4 KiB. */
        BRANCH(4),
        /** jal (J-type): {@code V - P} within +-1 MiB. */
        JAL(4),
        /** c.beqz, c.bnez: {@code V - P} within +-256 bytes. */
        RVC_BRANCH(2),
        /** c.j, c.jal: {@code V - P} within +-2 KiB. */
        RVC_JUMP(2);

        private final int size;

        Kind(int size) {
            this.size = size;
        }

        /**
         * The number of bytes the fixup rewrites.
         *
         * @return 2, 4 or 8
         */
        public int size() {
            return size;
        }
    }

    /**
     * Checks the offsets.
     *
     * @param region the region's index
     * @param offset the byte offset in the region
     * @param kind how the value is encoded
     * @param symbol the external name, {@link #REGION}, or null
     * @param addend the constant added to the symbol's value
     * @param anchor the auipc's offset for the PCREL_LO12 kinds, else {@code offset}
     * @param line the source line
     * @param column the source column
     */
    public Fixup {
        if (offset < 0 || anchor < 0 || kind == null) {
            throw new IllegalArgumentException("bad fixup at offset " + offset + " (anchor " + anchor + ")");
        }
    }

    /**
     * Encodes {@code value} into {@code out}, whose byte {@code base} is the region's first byte,
     * placed at {@code address} (public for the runtime-object linker of {@code patch}).
     *
     * @param out the bytes
     * @param base the index of the region's first byte in {@code out}
     * @param address where the region lands
     * @param value the value to encode ({@code S + A})
     * @return null, or why the value does not fit
     */
    public String apply(byte[] out, int base, long address, long value) {
        int at = base + offset;
        long pc = address + offset;
        switch (kind) {
            case ABS64 -> {
                for (int i = 0; i < 8; i++) {
                    out[at + i] = (byte) (value >>> (8 * i));
                }
                return null;
            }
            case ABS32 -> {
                if (value < Integer.MIN_VALUE || value > 0xffffffffL) {
                    return "value 0x" + Long.toHexString(value) + " does not fit in 32 bits";
                }
                write32(out, at, (int) value);
                return null;
            }
            case HI20 -> {
                long hi = (value + 0x800) >> 12;
                if (hi < -(1L << 19) || hi >= (1L << 19)) {
                    return "value 0x" + Long.toHexString(value) + " is out of the signed 32-bit range of lui";
                }
                write32(out, at, (read32(out, at) & 0xfff) | (int) (hi << 12));
                return null;
            }
            case LO12_I -> {
                write32(out, at, withLowI(read32(out, at), value));
                return null;
            }
            case LO12_S -> {
                write32(out, at, withLowS(read32(out, at), value));
                return null;
            }
            case PCREL_HI20, CALL -> {
                long delta = value - pc;
                long hi = (delta + 0x800) >> 12;
                if (hi < -(1L << 19) || hi >= (1L << 19)) {
                    return "target 0x" + Long.toHexString(value) + " is out of the +-2 GiB range of auipc from 0x"
                            + Long.toHexString(pc);
                }
                write32(out, at, (read32(out, at) & 0xfff) | (int) (hi << 12));
                if (kind == Kind.CALL) {
                    write32(out, at + 4, withLowI(read32(out, at + 4), delta));
                }
                return null;
            }
            case PCREL_LO12_I -> {
                write32(out, at, withLowI(read32(out, at), value - (address + anchor)));
                return null;
            }
            case PCREL_LO12_S -> {
                write32(out, at, withLowS(read32(out, at), value - (address + anchor)));
                return null;
            }
            case BRANCH, JAL, RVC_BRANCH, RVC_JUMP -> {
                return branch(out, at, value - pc, value, pc);
            }
            default -> throw new AssertionError(kind);
        }
    }

    private String branch(byte[] out, int at, long delta, long target, long pc) {
        long range = switch (kind) {
            case BRANCH -> 1L << 12;
            case JAL -> 1L << 20;
            case RVC_BRANCH -> 1L << 8;
            default -> 1L << 11;
        };
        if (delta < -range || delta >= range || (delta & 1) != 0) {
            return "target 0x" + Long.toHexString(target) + " is out of the +-" + range + "-byte range"
                    + ((delta & 1) != 0 ? " or odd" : "") + " from 0x" + Long.toHexString(pc);
        }
        int d = (int) delta;
        switch (kind) {
            case BRANCH -> write32(out, at, (read32(out, at) & 0x01fff07f)
                    | bit(d, 12, 31) | bits(d, 10, 5, 25) | bits(d, 4, 1, 8) | bit(d, 11, 7));
            case JAL -> write32(out, at, (read32(out, at) & 0x00000fff)
                    | bit(d, 20, 31) | bits(d, 10, 1, 21) | bit(d, 11, 20) | bits(d, 19, 12, 12));
            case RVC_BRANCH -> write16(out, at, (read16(out, at) & ~0x1c7c)
                    | bit(d, 8, 12) | bits(d, 4, 3, 10) | bits(d, 7, 6, 5) | bits(d, 2, 1, 3) | bit(d, 5, 2));
            default -> write16(out, at, (read16(out, at) & ~0x1ffc)
                    | bit(d, 11, 12) | bit(d, 4, 11) | bits(d, 9, 8, 9) | bit(d, 10, 8) | bit(d, 6, 7)
                    | bit(d, 7, 6) | bits(d, 3, 1, 3) | bit(d, 5, 2));
        }
        return null;
    }

    /** Bit {@code from} of {@code value} at instruction bit {@code to}. */
    private static int bit(int value, int from, int to) {
        return ((value >>> from) & 1) << to;
    }

    /** Bits {@code hi..lo} of {@code value} with bit {@code lo} at instruction bit {@code to}. */
    private static int bits(int value, int hi, int lo, int to) {
        return ((value >>> lo) & ((1 << (hi - lo + 1)) - 1)) << to;
    }

    private static int withLowI(int word, long value) {
        return (word & 0x000fffff) | ((int) value & 0xfff) << 20;
    }

    private static int withLowS(int word, long value) {
        int low = (int) value & 0xfff;
        return (word & 0x01fff07f) | (low >>> 5) << 25 | (low & 0x1f) << 7;
    }

    private static int read32(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    private static int read16(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    private static void write32(byte[] b, int at, int word) {
        b[at] = (byte) word;
        b[at + 1] = (byte) (word >>> 8);
        b[at + 2] = (byte) (word >>> 16);
        b[at + 3] = (byte) (word >>> 24);
    }

    private static void write16(byte[] b, int at, int half) {
        b[at] = (byte) half;
        b[at + 1] = (byte) (half >>> 8);
    }
}
