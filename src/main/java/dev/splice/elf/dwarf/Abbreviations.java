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
     * @param constants the values of the DW_FORM_implicit_const ones (0 for the others)
     */
    record Abbreviation(int tag, boolean children, int[] attributes, int[] forms, long[] constants) {
        /** The abbreviation's encoding under {@code code}. */
        byte[] encode(long code) {
            dev.splice.base.ByteWriter w = new dev.splice.base.ByteWriter();
            w.uleb(code);
            w.uleb(tag);
            w.u8(children ? 1 : 0);
            for (int i = 0; i < attributes.length; i++) {
                w.uleb(attributes[i]);
                w.uleb(forms[i]);
                if (forms[i] == FORM_IMPLICIT_CONST) {
                    w.sleb(constants[i]);
                }
            }
            w.u8(0);
            w.u8(0);
            return w.toByteArray();
        }
    }

    private final Map<Long, Abbreviation> byCode = new HashMap<>();
    /** Each code's encoding: its start and end offsets in the section. */
    private final Map<Long, int[]> spans = new HashMap<>();
    private final int offset;
    private final int end;

    /** The table at {@code offset} of {@code section}. */
    Abbreviations(byte[] section, long offset) {
        if (offset < 0 || offset >= section.length) {
            throw new UnsupportedDwarfException(SECTION, offset, "an abbreviation table outside the section");
        }
        this.offset = (int) offset;
        ByteReader r = new ByteReader(section, (int) offset, section.length, SECTION);
        while (true) {
            int start = r.position();
            long code = r.uleb();
            if (code == 0) {
                end = r.position();
                return;
            }
            int tag = (int) r.uleb();
            boolean children = r.u8() != 0;
            int[] attributes = new int[8];
            int[] forms = new int[8];
            long[] constants = new long[8];
            int count = 0;
            while (true) {
                int attribute = (int) r.uleb();
                int form = (int) r.uleb();
                if (attribute == 0 && form == 0) {
                    break;
                }
                long constant = form == FORM_IMPLICIT_CONST ? r.sleb() : 0;
                if (count == MAX_ATTRIBUTES) {
                    throw r.error(r.position(), "more than " + MAX_ATTRIBUTES + " attributes in abbreviation " + code);
                }
                if (count == attributes.length) {
                    attributes = java.util.Arrays.copyOf(attributes, count * 2);
                    forms = java.util.Arrays.copyOf(forms, count * 2);
                    constants = java.util.Arrays.copyOf(constants, count * 2);
                }
                constants[count] = constant;
                attributes[count] = attribute;
                forms[count++] = form;
            }
            byCode.put(code, new Abbreviation(tag, children, java.util.Arrays.copyOf(attributes, count),
                    java.util.Arrays.copyOf(forms, count), java.util.Arrays.copyOf(constants, count)));
            spans.put(code, new int[] {start, r.position()});
        }
    }

    /**
     * A copy of this table (of {@code section}) with the abbreviation of {@code code} replaced by
     * {@code replacement}: a table of its own for one unit.
     */
    byte[] withReplaced(byte[] section, long code, Abbreviation replacement) {
        int[] span = spans.get(code);
        dev.splice.base.ByteWriter w = new dev.splice.base.ByteWriter();
        w.bytes(section, offset, span[0] - offset);
        w.bytes(replacement.encode(code));
        w.bytes(section, span[1], end - span[1]);
        return w.toByteArray();
    }

    /** The abbreviation of {@code code}, or null. */
    Abbreviation get(long code) {
        return byCode.get(code);
    }
}
