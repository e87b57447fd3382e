package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import dev.splice.elf.dwarf.Abbreviations.Abbreviation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Walks every DIE of {@code .debug_info} (DWARF 4 and 5, 32-bit format) and hands each to a
 * visitor with its attributes: where each value lies in the section and, for the forms that hold
 * a number, the number. It reads every form of DWARF 5 and the GNU extensions, so that it can step
 * over what it does not interpret.
 */
final class DieWalker {
    static final String SECTION = ".debug_info";

    /**
     * A unit's header.
     *
     * @param offset the unit's offset
     * @param end the offset after it
     * @param version its version
     * @param unitType DW_UT_* (DW_UT_compile for DWARF 4)
     * @param addressSize address_size
     * @param abbreviations the unit's abbreviation table
     * @param abbreviationsField the offset of the header's debug_abbrev_offset field
     */
    record Unit(int offset, int end, int version, int unitType, int addressSize, Abbreviations abbreviations,
                int abbreviationsField) {}

    /**
     * One attribute of a DIE.
     *
     * @param name DW_AT_*
     * @param form DW_FORM_* (the actual form after DW_FORM_indirect)
     * @param offset where the value starts in the section
     * @param size the value's size in bytes
     * @param value the value, for forms that hold a number (0 for the others)
     */
    record Attribute(int name, int form, int offset, int size, long value) {}

    /** Receives the DIEs. */
    interface Visitor {
        /**
         * One DIE.
         *
         * @param unit its unit
         * @param offset the DIE's offset in the section
         * @param code its abbreviation code
         * @param attributes its attributes, in order
         */
        void die(Unit unit, int offset, long code, List<Attribute> attributes);
    }

    private final byte[] info;
    private final byte[] abbrev;
    private final Map<Long, Abbreviations> tables = new HashMap<>();

    DieWalker(byte[] info, byte[] abbrev) {
        this.info = info;
        this.abbrev = abbrev;
    }

    /** Visits every DIE of every unit, in order. */
    void walk(Visitor visitor) {
        int at = 0;
        while (at < info.length) {
            at = unit(at, visitor);
        }
    }

    private int unit(int offset, Visitor visitor) {
        ByteReader r = UnitLength.unit(info, offset, SECTION);
        int end = r.position() + r.remaining();
        int version = r.u16();
        int unitType;
        int addressSize;
        long abbrevOffset;
        int abbreviationsField;
        if (version == 5) {
            unitType = r.u8();
            addressSize = r.u8();
            abbreviationsField = r.position();
            abbrevOffset = r.u32() & 0xffffffffL;
            switch (unitType) {
                case 1, 3 -> { } // DW_UT_compile, DW_UT_partial
                case 4, 5 -> r.skip(8); // skeleton, split_compile: dwo_id
                case 2, 6 -> r.skip(12); // type, split_type: signature and type_offset
                default -> throw new UnsupportedDwarfException(SECTION, offset, "unit type " + unitType + " is not handled");
            }
        } else if (version == 4) {
            unitType = 1;
            abbreviationsField = r.position();
            abbrevOffset = r.u32() & 0xffffffffL;
            addressSize = r.u8();
        } else {
            throw new UnsupportedDwarfException(SECTION, offset, "DWARF version " + version + " is not handled (4 and 5 are)");
        }
        if (addressSize != 8) {
            throw new UnsupportedDwarfException(SECTION, offset, "address size " + addressSize + " (expected 8)");
        }
        Abbreviations table = tables.computeIfAbsent(abbrevOffset, o -> new Abbreviations(abbrev, o));
        Unit unit = new Unit(offset, end, version, unitType, addressSize, table, abbreviationsField);
        List<Attribute> attributes = new ArrayList<>();
        while (!r.atEnd()) {
            int die = r.position();
            long code = r.uleb();
            if (code == 0) {
                continue; // the end of a list of children
            }
            Abbreviation a = table.get(code);
            if (a == null) {
                throw r.error(die, "abbreviation code " + code + " is not in the unit's table");
            }
            attributes.clear();
            for (int i = 0; i < a.attributes().length; i++) {
                attributes.add(value(r, a.attributes()[i], a.forms()[i], unit));
            }
            visitor.die(unit, die, code, attributes);
        }
        return end;
    }

    /** Reads one attribute value, stepping over it. */
    private static Attribute value(ByteReader r, int name, int form, Unit unit) {
        int start = r.position();
        long value = 0;
        switch (form) {
            case 0x01 -> value = r.u64(); // addr
            case 0x0b, 0x0c, 0x11, 0x25, 0x29 -> value = r.u8(); // data1 flag ref1 strx1 addrx1
            case 0x05, 0x12, 0x26, 0x2a -> value = r.u16(); // data2 ref2 strx2 addrx2
            case 0x27, 0x2b -> { // strx3 addrx3
                value = r.u16();
                value |= (long) r.u8() << 16;
            }
            case 0x06, 0x0e, 0x10, 0x13, 0x17, 0x1c, 0x1d, 0x1f, 0x28, 0x2c, 0x1f20, 0x1f21 ->
                    value = r.u32() & 0xffffffffL; // data4 strp ref_addr ref4 sec_offset ref_sup4 strp_sup line_strp strx4 addrx4 GNU_ref_alt GNU_strp_alt
            case 0x07, 0x14, 0x20, 0x24 -> value = r.u64(); // data8 ref8 ref_sig8 ref_sup8
            case 0x1e -> r.skip(16); // data16
            case 0x0d -> value = r.sleb(); // sdata
            case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02 -> value = r.uleb(); // udata ref_udata strx addrx loclistx rnglistx GNU_addr_index GNU_str_index
            case 0x08 -> r.cstring(); // string
            case 0x0a -> r.skip(r.u8()); // block1
            case 0x03 -> r.skip(r.u16()); // block2
            case 0x04 -> r.skip(length(r, r.u32() & 0xffffffffL)); // block4
            case 0x09, 0x18 -> r.skip(length(r, r.uleb())); // block exprloc
            case 0x19, 0x21 -> { } // flag_present implicit_const (its value is in the abbreviation)
            case 0x16 -> { // indirect
                return value(r, name, (int) r.uleb(), unit);
            }
            default -> throw new UnsupportedDwarfException(SECTION, start, "form 0x" + Integer.toHexString(form) + " is not handled");
        }
        return new Attribute(name, form, start, r.position() - start, value);
    }

    private static int length(ByteReader r, long length) {
        if (length < 0 || length > r.remaining()) {
            throw r.error(r.position(), "a block of " + length + " bytes runs past the unit's end");
        }
        return (int) length;
    }
}
