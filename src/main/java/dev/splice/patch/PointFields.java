package dev.splice.patch;

import dev.splice.patch.FragmentTemplate.Field;

/**
 * The values of the template fields at one insertion: the point's input address, its function and
 * offset in it, the insertion's dense number and the address of its 8-byte counter slot.
 *
 * @param address the input address of the instruction the fragment goes before
 * @param function the name of the function around it
 * @param offset {@code address} minus the function's start
 * @param id the insertion's number (see {@link Insertions#numbered})
 * @param counter the address of the insertion's counter slot
 */
record PointFields(long address, String function, long offset, int id, long counter) {
    /** The text that replaces {@code field}: addresses in hex with 0x, numbers in decimal, the function's name. */
    String value(Field field) {
        return switch (field) {
            case ADDR -> "0x" + Long.toHexString(address);
            case FUNC -> function;
            case OFFSET -> Long.toString(offset);
            case ID -> Integer.toString(id);
            case COUNTER -> "0x" + Long.toHexString(counter);
        };
    }

    /** The numeric value of {@code field} ({@code {func}} has none). */
    long number(Field field) {
        return switch (field) {
            case ADDR -> address;
            case OFFSET -> offset;
            case ID -> id;
            case COUNTER -> counter;
            case FUNC -> throw new IllegalArgumentException("{func} is a name");
        };
    }
}
