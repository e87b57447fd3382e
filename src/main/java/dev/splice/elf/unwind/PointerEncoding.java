package dev.splice.elf.unwind;

import dev.splice.base.ByteReader;

/**
 * The DW_EH_PE pointer encodings of {@code .eh_frame}, {@code .eh_frame_hdr} and LSDAs (LSB
 * "Linux Standard Base Core Specification", "DWARF Exception Header Encoding"): the low four bits
 * say how the value is stored, bits 4 to 6 what it is relative to, bit 7 that it points to the
 * pointer. Splice applies absolute and pc-relative values; the others (text-, data-, function-
 * relative, aligned) are refused where they would have to be applied.
 */
public final class PointerEncoding {
    private PointerEncoding() {}

    /** Value format: a pointer-sized (8-byte) absolute value. */
    public static final int DW_EH_PE_ABSPTR = 0x00;
    /** Value format: unsigned LEB128. */
    public static final int DW_EH_PE_ULEB128 = 0x01;
    /** Value format: unsigned 2 bytes. */
    public static final int DW_EH_PE_UDATA2 = 0x02;
    /** Value format: unsigned 4 bytes. */
    public static final int DW_EH_PE_UDATA4 = 0x03;
    /** Value format: unsigned 8 bytes. */
    public static final int DW_EH_PE_UDATA8 = 0x04;
    /** Value format: signed LEB128. */
    public static final int DW_EH_PE_SLEB128 = 0x09;
    /** Value format: signed 2 bytes. */
    public static final int DW_EH_PE_SDATA2 = 0x0a;
    /** Value format: signed 4 bytes. */
    public static final int DW_EH_PE_SDATA4 = 0x0b;
    /** Value format: signed 8 bytes. */
    public static final int DW_EH_PE_SDATA8 = 0x0c;
    /** Application: relative to the address of the field itself. */
    public static final int DW_EH_PE_PCREL = 0x10;
    /** Application: relative to the start of the text (not applied by Splice). */
    public static final int DW_EH_PE_TEXTREL = 0x20;
    /** Application: relative to a data base; in {@code .eh_frame_hdr}, to the section's start. */
    public static final int DW_EH_PE_DATAREL = 0x30;
    /** Application: relative to the function's start (not applied by Splice). */
    public static final int DW_EH_PE_FUNCREL = 0x40;
    /** Application: aligned to the pointer size (not applied by Splice). */
    public static final int DW_EH_PE_ALIGNED = 0x50;
    /** Flag: the value is the address of the pointer, not the pointer. */
    public static final int DW_EH_PE_INDIRECT = 0x80;
    /** No value at all. */
    public static final int DW_EH_PE_OMIT = 0xff;

    /**
     * The size of a fixed-size value format.
     *
     * @param encoding a DW_EH_PE encoding
     * @return 2, 4 or 8 bytes; 0 for {@link #DW_EH_PE_OMIT}; -1 for the LEB128 formats and unknown ones
     */
    public static int size(int encoding) {
        if (encoding == DW_EH_PE_OMIT) {
            return 0;
        }
        return switch (encoding & 0x0f) {
            case DW_EH_PE_ABSPTR, DW_EH_PE_UDATA8, DW_EH_PE_SDATA8 -> 8;
            case DW_EH_PE_UDATA4, DW_EH_PE_SDATA4 -> 4;
            case DW_EH_PE_UDATA2, DW_EH_PE_SDATA2 -> 2;
            default -> -1;
        };
    }

    /**
     * Whether Splice applies the encoding's application (absolute or pc-relative).
     *
     * @param encoding a DW_EH_PE encoding
     * @return true for absolute and pc-relative values, direct or indirect
     */
    public static boolean isApplied(int encoding) {
        int application = encoding & 0x70;
        return application == 0 || application == DW_EH_PE_PCREL;
    }

    /**
     * Reads a value in the encoding's format only (no application): lengths, offsets, call-site fields.
     *
     * @param r the reader, at the field
     * @param encoding a DW_EH_PE encoding (its application bits are ignored)
     * @return the value (0 for {@link #DW_EH_PE_OMIT}, which reads nothing)
     */
    public static long readValue(ByteReader r, int encoding) {
        if (encoding == DW_EH_PE_OMIT) {
            return 0;
        }
        int at = r.position();
        return switch (encoding & 0x0f) {
            case DW_EH_PE_ABSPTR, DW_EH_PE_UDATA8, DW_EH_PE_SDATA8 -> r.u64();
            case DW_EH_PE_ULEB128 -> r.uleb();
            case DW_EH_PE_UDATA2 -> r.u16();
            case DW_EH_PE_UDATA4 -> r.u32() & 0xffffffffL;
            case DW_EH_PE_SLEB128 -> r.sleb();
            case DW_EH_PE_SDATA2 -> (short) r.u16();
            case DW_EH_PE_SDATA4 -> r.u32();
            default -> throw r.error(at, "unsupported pointer encoding 0x" + Integer.toHexString(encoding));
        };
    }

    /**
     * Reads a pointer and applies it: pc-relative values are made absolute. The indirect flag is
     * not followed: an indirect pointer gives the address of the cell that holds the pointer.
     *
     * @param r the reader, at the field; its offsets are offsets in the section
     * @param encoding a DW_EH_PE encoding
     * @param sectionAddress the address of the section the reader's bytes are
     * @return the address (0 for {@link #DW_EH_PE_OMIT})
     */
    public static long read(ByteReader r, int encoding, long sectionAddress) {
        int at = r.position();
        long value = readValue(r, encoding);
        if (encoding == DW_EH_PE_OMIT) {
            return 0;
        }
        return switch (encoding & 0x70) {
            case 0x00 -> value;
            case DW_EH_PE_PCREL -> sectionAddress + at + value;
            default -> throw r.error(at, "unsupported pointer application 0x" + Integer.toHexString(encoding));
        };
    }

    /**
     * Writes a pointer in a fixed-size format, absolute or pc-relative.
     *
     * @param b the bytes
     * @param at the offset of the field in {@code b}
     * @param encoding a DW_EH_PE encoding with {@link #size} &gt; 0 (other applications than
     *     pc-relative are written as absolute values)
     * @param fieldAddress the address the field will have, for pc-relative values
     * @param value the address (or number) to store
     * @return false, writing nothing, when the value does not fit the format
     */
    public static boolean write(byte[] b, int at, int encoding, long fieldAddress, long value) {
        int width = size(encoding);
        if (width <= 0) {
            throw new IllegalArgumentException("pointer encoding 0x" + Integer.toHexString(encoding) + " has no fixed size");
        }
        long v = (encoding & 0x70) == DW_EH_PE_PCREL ? value - fieldAddress : value;
        boolean signed = (encoding & 0x08) != 0;
        long limit = 1L << (width * 8 - 1);
        boolean fits = width == 8 || (signed ? v >= -limit && v < limit : v >>> (width * 8) == 0);
        if (!fits) {
            return false;
        }
        for (int i = 0; i < width; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
        return true;
    }
}
