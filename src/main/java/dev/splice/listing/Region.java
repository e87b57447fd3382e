package dev.splice.listing;

import java.util.Objects;

/**
 * A run of machine code to list: a section, a function or raw bytes, with the address of its
 * first byte. The listing's region line names it, and the assembler recreates it.
 */
public record Region(Kind kind, String name, long address, byte[] bytes) {
    /** Where the bytes came from; decides the region directive of the listing. */
    public enum Kind {
        SECTION(".section"),
        FUNCTION(".function"),
        RAW(".origin");

        private final String directive;

        Kind(String directive) {
            this.directive = directive;
        }

        /** The listing directive that starts a region of this kind. */
        public String directive() {
            return directive;
        }
    }

    public Region {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bytes, "bytes");
    }

    public static Region section(String name, long address, byte[] bytes) {
        return new Region(Kind.SECTION, name, address, bytes);
    }

    public static Region function(String name, long address, byte[] bytes) {
        return new Region(Kind.FUNCTION, name, address, bytes);
    }

    public static Region raw(long address, byte[] bytes) {
        return new Region(Kind.RAW, "", address, bytes);
    }

    public long end() {
        return address + bytes.length;
    }
}
