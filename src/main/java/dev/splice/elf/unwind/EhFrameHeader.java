package dev.splice.elf.unwind;

import dev.splice.base.ByteReader;

/**
 * The {@code .eh_frame_hdr} section (LSB, ".eh_frame_hdr"): a pointer to {@code .eh_frame} and
 * the binary-search table the unwinder uses, one row per FDE (its initial location and its
 * address), sorted by initial location. Read as every linker writes it: version 1, the FDE count
 * as udata4 and the table as datarel sdata4 (relative to the start of this section); other
 * layouts are refused.
 */
public final class EhFrameHeader {
    /** The FDE count encoding every linker writes: DW_EH_PE_udata4. */
    public static final int FDE_COUNT_ENCODING = PointerEncoding.DW_EH_PE_UDATA4;
    /** The table encoding every linker writes: DW_EH_PE_datarel | DW_EH_PE_sdata4. */
    public static final int TABLE_ENCODING = PointerEncoding.DW_EH_PE_DATAREL | PointerEncoding.DW_EH_PE_SDATA4;
    /** The size of one table row: two 4-byte fields. */
    public static final int ROW_SIZE = 8;

    private final long ehFramePointer;
    private final int tableOffset;
    private final long[] initialLocations;
    private final long[] fdeAddresses;

    private EhFrameHeader(long ehFramePointer, int tableOffset, long[] initialLocations, long[] fdeAddresses) {
        this.ehFramePointer = ehFramePointer;
        this.tableOffset = tableOffset;
        this.initialLocations = initialLocations;
        this.fdeAddresses = fdeAddresses;
    }

    /**
     * Parses the section.
     *
     * @param bytes the section's contents
     * @param address the section's address
     * @param source what the bytes are, for messages
     * @return the header and its table
     * @throws dev.splice.base.BadInputException for another layout or a table past the section's end
     */
    public static EhFrameHeader parse(byte[] bytes, long address, String source) {
        ByteReader r = new ByteReader(bytes, 0, bytes.length, source);
        int version = r.u8();
        int pointerEncoding = r.u8();
        int countEncoding = r.u8();
        int tableEncoding = r.u8();
        if (version != 1 || countEncoding != FDE_COUNT_ENCODING || tableEncoding != TABLE_ENCODING) {
            throw new UnwindFormatException(source, 0, "version " + version + ", FDE count encoding 0x"
                    + Integer.toHexString(countEncoding) + " and table encoding 0x" + Integer.toHexString(tableEncoding)
                    + " are not handled (expected 1, 0x3 and 0x3b)");
        }
        int at = r.position();
        long pointer = PointerEncoding.readValue(r, pointerEncoding);
        long ehFrame = switch (pointerEncoding & 0x70) {
            case 0x00 -> pointer;
            case PointerEncoding.DW_EH_PE_PCREL -> address + at + pointer;
            case PointerEncoding.DW_EH_PE_DATAREL -> address + pointer;
            default -> throw new UnwindFormatException(source, at,
                    "unsupported pointer application 0x" + Integer.toHexString(pointerEncoding));
        };
        long count = r.u32() & 0xffffffffL;
        int table = r.position();
        if (count > r.remaining() / ROW_SIZE) {
            throw new UnwindFormatException(source, table, "table of " + count + " rows runs past the end of the section");
        }
        long[] locations = new long[(int) count];
        long[] fdes = new long[(int) count];
        for (int i = 0; i < count; i++) {
            locations[i] = address + r.u32();
            fdes[i] = address + r.u32();
        }
        return new EhFrameHeader(ehFrame, table, locations, fdes);
    }

    /** {@return the address of {@code .eh_frame} the header points to} */
    public long ehFramePointer() {
        return ehFramePointer;
    }

    /** {@return the offset in the section of the table's first row} */
    public int tableOffset() {
        return tableOffset;
    }

    /** {@return the number of rows} */
    public int count() {
        return initialLocations.length;
    }

    /**
     * The first address the FDE of a row describes.
     *
     * @param row the row, below {@link #count()}
     * @return the address
     */
    public long initialLocation(int row) {
        return initialLocations[row];
    }

    /**
     * The address of the FDE of a row.
     *
     * @param row the row, below {@link #count()}
     * @return the address
     */
    public long fdeAddress(int row) {
        return fdeAddresses[row];
    }
}
