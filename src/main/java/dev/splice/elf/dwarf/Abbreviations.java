package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import java.util.HashMap;
import java.util.Map;

/**
 * One abbreviation table of {@code .debug_abbrev}: each code's tag, whether its DIEs have
 * children, and its attributes with their forms (and DW_FORM_implicit_const values).
 */
final class Abbreviations {
    static final String SECTION = ".debug_abbrev";
    private static final int FORM_IMPLICIT_CONST = 0x21;
    /** No real table has this many attributes in one abbreviation; a corrupt one must not exhaust memory. */
    private static final int MAX_ATTRIBUTES = 4096;

    /**
     * One abbreviation.
     *
     * @param tag the DIEs' tag
     * @param children whether the DIEs have children
     * @param attributes the attribute names, in order
     * @param forms their forms
     */
    record Abbreviation(int tag, boolean children, int[] attributes, int[] forms) {}

    private final Map<Long, Abbreviation> byCode = new HashMap<>();

    /** The table at {@code offset} of {@code section}. */
    Abbreviations(byte[] section, long offset) {
        if (offset < 0 || offset >= section.length) {
            throw new UnsupportedDwarfException(SECTION, offset, "an abbreviation table outside the section");
        }
        ByteReader r = new ByteReader(section, (int) offset, section.length, SECTION);
        while (true) {
            long code = r.uleb();
            if (code == 0) {
                return;
            }
            int tag = (int) r.uleb();
            boolean children = r.u8() != 0;
            int[] attributes = new int[8];
            int[] forms = new int[8];
            int count = 0;
            while (true) {
                int attribute = (int) r.uleb();
                int form = (int) r.uleb();
                if (attribute == 0 && form == 0) {
                    break;
                }
                if (form == FORM_IMPLICIT_CONST) {
                    r.sleb();
                }
                if (count == MAX_ATTRIBUTES) {
                    throw r.error(r.position(), "more than " + MAX_ATTRIBUTES + " attributes in abbreviation " + code);
                }
                if (count == attributes.length) {
                    attributes = java.util.Arrays.copyOf(attributes, count * 2);
                    forms = java.util.Arrays.copyOf(forms, count * 2);
                }
                attributes[count] = attribute;
                forms[count++] = form;
            }
            byCode.put(code, new Abbreviation(tag, children, java.util.Arrays.copyOf(attributes, count),
                    java.util.Arrays.copyOf(forms, count)));
        }
    }

    /** The abbreviation of {@code code}, or null. */
    Abbreviation get(long code) {
        return byCode.get(code);
    }
}
