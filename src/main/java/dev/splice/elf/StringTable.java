package dev.splice.elf;

import java.nio.charset.StandardCharsets;

/** A validated view of one SHT_STRTAB section: every lookup checks the index and the terminating NUL. */
final class StringTable {
    private final byte[] bytes;
    private final String file;
    /** Named in messages only: see {@link #what()}. */
    private final Section section;
    private final long start;
    private final long size;

    StringTable(byte[] bytes, String file, Section section) {
        this.bytes = bytes;
        this.file = file;
        this.section = section;
        this.start = section.offset();
        this.size = section.fileSize();
    }

    /**
     * The NUL-terminated string at {@code index} (an unsigned 32-bit value); {@code where} is the
     * file offset of the field that holds the index, for the error message.
     */
    String get(int index, long where) {
        long i = index & 0xffffffffL;
        if (i >= size) {
            throw new ElfFormatException(file, where,
                    "string index " + i + " is outside " + what() + " (size " + size + ")");
        }
        int from = (int) (start + i);
        int end = (int) (start + size);
        int at = from;
        while (at < end && bytes[at] != 0) {
            at++;
        }
        if (at == end) {
            throw new ElfFormatException(file, where,
                    "string at index " + i + " in " + what() + " is not NUL-terminated");
        }
        return new String(bytes, from, at - from, StandardCharsets.UTF_8);
    }

    /** Built on errors only: the first string concatenation of a run costs milliseconds of start-up. */
    private String what() {
        return "string table [" + section.index() + "] " + section.name();
    }
}
