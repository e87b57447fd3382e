package dev.splice.elf.unwind;

import dev.splice.base.BadInputException;

/**
 * An unwind table ({@code .eh_frame}, its CFA programs, {@code .eh_frame_hdr}, an LSDA) that is
 * malformed or uses what Splice does not read. The message is "source: offset N: reason", as
 * {@link dev.splice.base.ByteReader} words its refusals; {@link #reason()} alone lets a caller
 * word its own refusal.
 */
public final class UnwindFormatException extends BadInputException {
    private static final long serialVersionUID = 1L;

    /** The offset of the problem in the section. */
    private final int offset;
    /** Why, without source and offset. */
    private final String reason;

    /**
     * A refusal.
     *
     * @param source what the bytes are ("file: .eh_frame")
     * @param offset the offset of the bad record, field or instruction in the section
     * @param reason why, without source and offset
     */
    UnwindFormatException(String source, int offset, String reason) {
        super(source + ": offset " + offset + ": " + reason);
        this.offset = offset;
        this.reason = reason;
    }

    /** {@return the offset in the section where the problem was found} */
    public int offset() {
        return offset;
    }

    /** {@return why the bytes were refused, without source and offset} */
    public String reason() {
        return reason;
    }
}
