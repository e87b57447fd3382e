package dev.splice.elf.unwind;

import dev.splice.base.ByteWriter;

/**
 * The DWARF call frame instructions of {@code .eh_frame} CFA programs (DWARF 5, section 6.4.2,
 * with GCC's DW_CFA_GNU extensions), and the encoding of the one a rewriter re-computes: the
 * advance of the location. The three primary opcodes keep an operand in their low six bits.
 */
public final class Cfa {
    private Cfa() {}

    /** Primary: advance the location by the low 6 bits times the code alignment. */
    public static final int DW_CFA_ADVANCE_LOC = 0x40;
    /** Primary: register (low 6 bits) saved at a ULEB128 factored offset from the CFA. */
    public static final int DW_CFA_OFFSET = 0x80;
    /** Primary: register (low 6 bits) restored to its initial rule. */
    public static final int DW_CFA_RESTORE = 0xc0;
    /** No operation (padding). */
    public static final int DW_CFA_NOP = 0x00;
    /** Set the location to an address in the FDE's pointer encoding. */
    public static final int DW_CFA_SET_LOC = 0x01;
    /** Advance the location by a 1-byte factored delta. */
    public static final int DW_CFA_ADVANCE_LOC1 = 0x02;
    /** Advance the location by a 2-byte factored delta. */
    public static final int DW_CFA_ADVANCE_LOC2 = 0x03;
    /** Advance the location by a 4-byte factored delta. */
    public static final int DW_CFA_ADVANCE_LOC4 = 0x04;
    /** Register saved at a factored offset (ULEB128 register, ULEB128 offset). */
    public static final int DW_CFA_OFFSET_EXTENDED = 0x05;
    /** Register restored to its initial rule (ULEB128 register). */
    public static final int DW_CFA_RESTORE_EXTENDED = 0x06;
    /** Register undefined (ULEB128 register). */
    public static final int DW_CFA_UNDEFINED = 0x07;
    /** Register unchanged (ULEB128 register). */
    public static final int DW_CFA_SAME_VALUE = 0x08;
    /** Register saved in another register (two ULEB128 registers). */
    public static final int DW_CFA_REGISTER = 0x09;
    /** Push the row's rules. */
    public static final int DW_CFA_REMEMBER_STATE = 0x0a;
    /** Pop the rules pushed last. */
    public static final int DW_CFA_RESTORE_STATE = 0x0b;
    /** The CFA is a register plus an offset (ULEB128 register, ULEB128 offset). */
    public static final int DW_CFA_DEF_CFA = 0x0c;
    /** The CFA's register (ULEB128). */
    public static final int DW_CFA_DEF_CFA_REGISTER = 0x0d;
    /** The CFA's offset (ULEB128). */
    public static final int DW_CFA_DEF_CFA_OFFSET = 0x0e;
    /** The CFA is a DWARF expression (ULEB128 length, bytes). */
    public static final int DW_CFA_DEF_CFA_EXPRESSION = 0x0f;
    /** Register saved at an address computed by an expression (ULEB128 register, ULEB128 length, bytes). */
    public static final int DW_CFA_EXPRESSION = 0x10;
    /** Like DW_CFA_OFFSET_EXTENDED with a signed factored offset (ULEB128 register, SLEB128 offset). */
    public static final int DW_CFA_OFFSET_EXTENDED_SF = 0x11;
    /** Like DW_CFA_DEF_CFA with a signed factored offset (ULEB128 register, SLEB128 offset). */
    public static final int DW_CFA_DEF_CFA_SF = 0x12;
    /** Like DW_CFA_DEF_CFA_OFFSET with a signed factored offset (SLEB128). */
    public static final int DW_CFA_DEF_CFA_OFFSET_SF = 0x13;
    /** Register's value is the CFA plus a factored offset (ULEB128 register, ULEB128 offset). */
    public static final int DW_CFA_VAL_OFFSET = 0x14;
    /** Like DW_CFA_VAL_OFFSET with a signed factored offset (ULEB128 register, SLEB128 offset). */
    public static final int DW_CFA_VAL_OFFSET_SF = 0x15;
    /** Register's value is computed by an expression (ULEB128 register, ULEB128 length, bytes). */
    public static final int DW_CFA_VAL_EXPRESSION = 0x16;
    /** GNU: the size of the arguments pushed (ULEB128). */
    public static final int DW_CFA_GNU_ARGS_SIZE = 0x2e;
    /** GNU: register saved at a negated factored offset (ULEB128 register, ULEB128 offset). */
    public static final int DW_CFA_GNU_NEGATIVE_OFFSET_EXTENDED = 0x2f;

    /**
     * Appends an advance of the location in the smallest form that holds it: DW_CFA_advance_loc
     * up to 63, then advance_loc1, advance_loc2, advance_loc4.
     *
     * @param out where to append
     * @param delta the advance in code alignment units, 0 to 2^32 - 1
     */
    public static void writeAdvance(ByteWriter out, long delta) {
        if (delta < 0 || delta > 0xffffffffL) {
            throw new IllegalArgumentException("CFA advance " + delta + " does not fit DW_CFA_advance_loc4");
        }
        if (delta <= 0x3f) {
            out.u8((int) (DW_CFA_ADVANCE_LOC | delta));
        } else if (delta <= 0xff) {
            out.u8(DW_CFA_ADVANCE_LOC1);
            out.u8((int) delta);
        } else if (delta <= 0xffff) {
            out.u8(DW_CFA_ADVANCE_LOC2);
            out.u16((int) delta);
        } else {
            out.u8(DW_CFA_ADVANCE_LOC4);
            out.u32((int) delta);
        }
    }
}
