package dev.splice.elf;

import dev.splice.base.Hex;

/**
 * One note: owner (name without the terminating NUL), type, descriptor bytes, the section it came
 * from (the null section when read from a PT_NOTE segment) and the file offset of the note header.
 */
public record Note(String owner, int type, byte[] descriptor, Section section, long offset) {
    /** Note type (owner "GNU"): the ABI tag. */
    public static final int NT_GNU_ABI_TAG = 1;
    /** Note type (owner "GNU"): the build-id. */
    public static final int NT_GNU_BUILD_ID = 3;
    /** Note type (owner "GNU"): program properties. */
    public static final int NT_GNU_PROPERTY_TYPE_0 = 5;

    /** {@return the descriptor as lower-case hex (e.g. the build-id as readelf prints it)} */
    public String descriptorHex() {
        return Hex.of(descriptor);
    }
}
