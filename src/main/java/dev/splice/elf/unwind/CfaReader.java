package dev.splice.elf.unwind;

import static dev.splice.elf.unwind.Cfa.DW_CFA_ADVANCE_LOC;
import static dev.splice.elf.unwind.Cfa.DW_CFA_ADVANCE_LOC1;
import static dev.splice.elf.unwind.Cfa.DW_CFA_ADVANCE_LOC2;
import static dev.splice.elf.unwind.Cfa.DW_CFA_ADVANCE_LOC4;
import static dev.splice.elf.unwind.Cfa.DW_CFA_DEF_CFA;
import static dev.splice.elf.unwind.Cfa.DW_CFA_DEF_CFA_EXPRESSION;
import static dev.splice.elf.unwind.Cfa.DW_CFA_DEF_CFA_OFFSET;
import static dev.splice.elf.unwind.Cfa.DW_CFA_DEF_CFA_OFFSET_SF;
import static dev.splice.elf.unwind.Cfa.DW_CFA_DEF_CFA_REGISTER;
import static dev.splice.elf.unwind.Cfa.DW_CFA_DEF_CFA_SF;
import static dev.splice.elf.unwind.Cfa.DW_CFA_EXPRESSION;
import static dev.splice.elf.unwind.Cfa.DW_CFA_GNU_ARGS_SIZE;
import static dev.splice.elf.unwind.Cfa.DW_CFA_GNU_NEGATIVE_OFFSET_EXTENDED;
import static dev.splice.elf.unwind.Cfa.DW_CFA_NOP;
import static dev.splice.elf.unwind.Cfa.DW_CFA_OFFSET;
import static dev.splice.elf.unwind.Cfa.DW_CFA_OFFSET_EXTENDED;
import static dev.splice.elf.unwind.Cfa.DW_CFA_OFFSET_EXTENDED_SF;
import static dev.splice.elf.unwind.Cfa.DW_CFA_REGISTER;
import static dev.splice.elf.unwind.Cfa.DW_CFA_REMEMBER_STATE;
import static dev.splice.elf.unwind.Cfa.DW_CFA_RESTORE;
import static dev.splice.elf.unwind.Cfa.DW_CFA_RESTORE_EXTENDED;
import static dev.splice.elf.unwind.Cfa.DW_CFA_RESTORE_STATE;
import static dev.splice.elf.unwind.Cfa.DW_CFA_SAME_VALUE;
import static dev.splice.elf.unwind.Cfa.DW_CFA_SET_LOC;
import static dev.splice.elf.unwind.Cfa.DW_CFA_UNDEFINED;
import static dev.splice.elf.unwind.Cfa.DW_CFA_VAL_EXPRESSION;
import static dev.splice.elf.unwind.Cfa.DW_CFA_VAL_OFFSET;
import static dev.splice.elf.unwind.Cfa.DW_CFA_VAL_OFFSET_SF;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteReader;

/**
 * Steps through a CFA program one instruction at a time, without allocating: each
 * {@link #next()} decodes the opcode and skips the operands, so a caller can copy an instruction
 * ({@link #start()} to {@link #end()}) or re-encode it. Advances of the location are decoded
 * ({@link #delta()}). Unknown instructions and instructions that run past the program are refused
 * with an {@link UnwindFormatException}.
 */
public final class CfaReader {
    private final ByteReader r;
    private final int pointerEncoding;
    private final String source;
    private int start;
    private int opcode;
    private long delta;

    /**
     * A reader of the instructions in {@code bytes[start, end)}.
     *
     * @param bytes the section's contents
     * @param start the offset of the first instruction ({@link EhFrame.Entry#instructions()})
     * @param end the end of the program (the record's end)
     * @param pointerEncoding the FDE pointer encoding of the CIE, for DW_CFA_set_loc
     * @param source what the bytes are, for messages
     */
    public CfaReader(byte[] bytes, int start, int end, int pointerEncoding, String source) {
        this.r = new ByteReader(bytes, start, end, source);
        this.pointerEncoding = pointerEncoding;
        this.source = source;
    }

    /**
     * Decodes the next instruction.
     *
     * @return false at the end of the program
     * @throws UnwindFormatException for an unknown instruction or one that runs past the end
     */
    public boolean next() {
        if (r.atEnd()) {
            return false;
        }
        start = r.position();
        delta = 0;
        int op = r.u8();
        try {
            opcode = switch (op & 0xc0) {
                case DW_CFA_ADVANCE_LOC -> {
                    delta = op & 0x3f;
                    yield DW_CFA_ADVANCE_LOC;
                }
                case DW_CFA_OFFSET -> {
                    r.uleb();
                    yield DW_CFA_OFFSET;
                }
                case DW_CFA_RESTORE -> DW_CFA_RESTORE;
                default -> extended(op);
            };
        } catch (UnwindFormatException e) {
            throw e;
        } catch (BadInputException e) {
            throw new UnwindFormatException(source, start, "CFA instruction runs past the end of its FDE");
        }
        return true;
    }

    private int extended(int op) {
        switch (op) {
            case DW_CFA_NOP, DW_CFA_REMEMBER_STATE, DW_CFA_RESTORE_STATE -> { }
            case DW_CFA_SET_LOC -> PointerEncoding.readValue(r, pointerEncoding);
            case DW_CFA_ADVANCE_LOC1 -> delta = r.u8();
            case DW_CFA_ADVANCE_LOC2 -> delta = r.u16();
            case DW_CFA_ADVANCE_LOC4 -> delta = r.u32() & 0xffffffffL;
            case DW_CFA_RESTORE_EXTENDED, DW_CFA_UNDEFINED, DW_CFA_SAME_VALUE, DW_CFA_DEF_CFA_REGISTER,
                    DW_CFA_DEF_CFA_OFFSET, DW_CFA_GNU_ARGS_SIZE -> r.uleb();
            case DW_CFA_DEF_CFA_OFFSET_SF -> r.sleb();
            case DW_CFA_OFFSET_EXTENDED, DW_CFA_REGISTER, DW_CFA_DEF_CFA, DW_CFA_VAL_OFFSET,
                    DW_CFA_GNU_NEGATIVE_OFFSET_EXTENDED -> {
                r.uleb();
                r.uleb();
            }
            case DW_CFA_OFFSET_EXTENDED_SF, DW_CFA_DEF_CFA_SF, DW_CFA_VAL_OFFSET_SF -> {
                r.uleb();
                r.sleb();
            }
            case DW_CFA_DEF_CFA_EXPRESSION -> block();
            case DW_CFA_EXPRESSION, DW_CFA_VAL_EXPRESSION -> {
                r.uleb();
                block();
            }
            default -> throw new UnwindFormatException(source, start,
                    "CFA instruction 0x" + Integer.toHexString(op) + " is not handled");
        }
        return op;
    }

    private void block() {
        long length = r.uleb();
        if (length > r.remaining()) {
            throw new UnwindFormatException(source, start, "CFA instruction runs past the end of its FDE");
        }
        r.skip((int) length);
    }

    /**
     * {@return the instruction's opcode: one of the {@link Cfa} constants; for the three primary
     * instructions (advance_loc, offset, restore) without their low six bits}
     */
    public int opcode() {
        return opcode;
    }

    /** {@return the instruction's offset in the section} */
    public int start() {
        return start;
    }

    /** {@return the offset just past the instruction} */
    public int end() {
        return r.position();
    }

    /** {@return true for the four advances of the location (advance_loc, advance_loc1, 2 and 4)} */
    public boolean isAdvance() {
        return opcode == DW_CFA_ADVANCE_LOC || opcode == DW_CFA_ADVANCE_LOC1 || opcode == DW_CFA_ADVANCE_LOC2
                || opcode == DW_CFA_ADVANCE_LOC4;
    }

    /** {@return the advance in code alignment units, for an advance of the location; 0 otherwise} */
    public long delta() {
        return delta;
    }
}
