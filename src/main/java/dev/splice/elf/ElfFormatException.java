package dev.splice.elf;

import dev.splice.base.BadInputException;

/** A malformed or unsupported ELF file: the message names the file, the byte offset and the reason. */
public final class ElfFormatException extends BadInputException {
    private static final long serialVersionUID = 1L;

    /** The file (or name) the bytes came from. */
    private final String file;
    /** The byte offset of the problem in the file. */
    private final long offset;
    /** Why, without file and offset. */
    private final String reason;

    ElfFormatException(String file, long offset, String reason) {
        super(file + ": offset 0x" + Long.toHexString(offset) + ": " + reason);
        this.file = file;
        this.offset = offset;
        this.reason = reason;
    }

    /** {@return the file (or name) the bytes came from} */
    public String file() {
        return file;
    }

    /** {@return the byte offset in the file where the problem was found} */
    public long offset() {
        return offset;
    }

    /** {@return why the file was refused, without file and offset} */
    public String reason() {
        return reason;
    }
}
