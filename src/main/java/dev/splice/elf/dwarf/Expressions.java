package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Walks a DWARF expression (DWARF 4 and 5 operations and GNU's) and reports where each
 * {@code DW_OP_addr} operand is, including inside {@code DW_OP_entry_value}, and the index of each
 * address named through {@code .debug_addr} ({@code DW_OP_addrx}, {@code DW_OP_GNU_addr_index}):
 * the addresses a rewrite of moved code must follow. An operation this walker does not know is
 * refused: its operands' length or meaning is unknown.
 */
final class Expressions {
    private static final int OP_ADDR = 0x03;

    private Expressions() {}

    /**
     * Calls {@code addr} with the section offset of the 8-byte operand of every {@code DW_OP_addr}
     * of the expression {@code bytes[start, end)} and {@code addrx} with the index of every
     * {@code DW_OP_addrx}; {@code section} and {@code die} name the place in refusals.
     */
    static void addresses(byte[] bytes, int start, int end, String section, int die, IntConsumer addr, LongConsumer addrx) {
        ByteReader r = new ByteReader(bytes, start, end, section);
        while (!r.atEnd()) {
            int at = r.position();
            int op = r.u8();
            if (op >= 0x30 && op <= 0x6f || op >= 0x12 && op <= 0x2e && op != 0x15 && op != 0x23 && op != 0x28) {
                continue; // lit, reg, and the stack and arithmetic operations: no operand
            }
            if (op >= 0x70 && op <= 0x8f) { // breg
                r.sleb();
                continue;
            }
            switch (op) {
                case OP_ADDR -> {
                    addr.accept(r.position());
                    r.skip(8);
                }
                case 0x06, 0x96, 0x97, 0x9b, 0x9c, 0x9f, 0xe0, 0xf0 -> { } // deref nop push_object_address form_tls_address call_frame_cfa stack_value GNU_push_tls_address GNU_uninit
                case 0x08, 0x09, 0x15, 0x94, 0x95 -> r.skip(1); // const1u const1s pick deref_size xderef_size
                case 0x0a, 0x0b, 0x28, 0x2f, 0x98 -> r.skip(2); // const2u const2s bra skip call2
                case 0x0c, 0x0d, 0x99, 0x9a, 0xfa, 0xfd -> r.skip(4); // const4u const4s call4 call_ref GNU_parameter_ref GNU_variable_value
                case 0x0e, 0x0f -> r.skip(8); // const8u const8s
                case 0x10, 0x23, 0x90, 0x93, 0xa2, 0xa8, 0xa9, 0xf7, 0xf9, 0xfc -> r.uleb(); // constu plus_uconst regx piece constx convert reinterpret GNU_convert GNU_reinterpret GNU_const_index
                case 0x11, 0x91 -> r.sleb(); // consts fbreg
                case 0x92 -> { // bregx
                    r.uleb();
                    r.sleb();
                }
                case 0x9d, 0xa5, 0xf5 -> { // bit_piece regval_type GNU_regval_type
                    r.uleb();
                    r.uleb();
                }
                case 0x9e -> r.skip(length(r, r.uleb(), section, at)); // implicit_value
                case 0xa0, 0xf2 -> { // implicit_pointer GNU_implicit_pointer
                    r.skip(4);
                    r.sleb();
                }
                case 0xa3, 0xf3 -> { // entry_value GNU_entry_value: a nested expression
                    int length = length(r, r.uleb(), section, at);
                    addresses(bytes, r.position(), r.position() + length, section, die, addr, addrx);
                    r.skip(length);
                }
                case 0xa4, 0xf4 -> { // const_type GNU_const_type
                    r.uleb();
                    r.skip(r.u8());
                }
                case 0xa6, 0xa7, 0xf6 -> { // deref_type xderef_type GNU_deref_type
                    r.skip(1);
                    r.uleb();
                }
                case 0xa1, 0xfb -> addrx.accept(r.uleb()); // addrx GNU_addr_index
                default -> throw new UnsupportedDwarfException(section, die, "DWARF operation 0x" + Integer.toHexString(op)
                        + " at 0x" + Integer.toHexString(at) + " in an expression is not known, so its addresses cannot be followed");
            }
        }
    }

    private static int length(ByteReader r, long length, String section, int at) {
        if (length < 0 || length > r.remaining()) {
            throw new UnsupportedDwarfException(section, at, "an expression's block of " + length + " bytes runs past its end");
        }
        return (int) length;
    }
}
