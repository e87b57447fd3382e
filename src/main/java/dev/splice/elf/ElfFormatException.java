package dev.splice.elf;

import dev.splice.base.BadInputException;

/** A malformed or unsupported ELF file: the message names the file, the byte offset and the reason. */
public final class ElfFormatException extends BadInputException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final long offset;
    private final String reason;

    public ElfFormatException(String file, long offset, String reason) {
        super(file + ": offset 0x" + Long.toHexString(offset) + ": " + reason);
        this.file = file;
        this.offset = offset;
        this.reason = reason;
    }

    /** The file (or name) the bytes came from. */
    public String file() {
        return file;
    }

    /** The byte offset in the file where the problem was found. */
    public long offset() {
        return offset;
    }

    /** Why the file was refused, without file and offset. */
    public String reason() {
        return reason;
    }
}
