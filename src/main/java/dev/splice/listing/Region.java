package dev.splice.listing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A run of machine code to list: a section, a function or raw bytes, with the address of its
 * first byte. The listing's region line names it, and the assembler recreates it.
 *
 * @param kind what the bytes are, which decides the region line
 * @param name the section or function name; empty for raw bytes
 * @param address the address of the first byte
 * @param bytes the machine code (not copied)
 */
public record Region(Kind kind, String name, long address, byte[] bytes) {
    /** Where the bytes came from; decides the region directive of the listing. */
    public enum Kind {
        /** A whole section, listed as {@code .section NAME, ADDR}. */
        SECTION(".section"),
        /** One function, listed as {@code .function NAME, ADDR}. */
        FUNCTION(".function"),
        /** Bytes without a name, listed as {@code .origin ADDR}. */
        RAW(".origin");

        private final String directive;

        Kind(String directive) {
            this.directive = directive;
        }

        /**
         * The listing directive that starts a region of this kind.
         *
         * @return the directive, e.g. {@code .function}
         */
        public String directive() {
            return directive;
        }
    }

    /**
     * Checks that kind, name and bytes are present.
     *
     * @param kind what the bytes are
     * @param name the section or function name; empty for raw bytes
     * @param address the address of the first byte
     * @param bytes the machine code
     */
    public Region {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bytes, "bytes");
    }

    /**
     * A section's code.
     *
     * @param name the section name
     * @param address the section's address
     * @param bytes the section's contents
     * @return the region
     */
    public static Region section(String name, long address, byte[] bytes) {
        return new Region(Kind.SECTION, name, address, bytes);
    }

    /**
     * A function's code.
     *
     * @param name the function name
     * @param address the function's address
     * @param bytes the function's bytes
     * @return the region
     */
    public static Region function(String name, long address, byte[] bytes) {
        return new Region(Kind.FUNCTION, name, address, bytes);
    }

    /**
     * Bytes without a name (listed with {@code .origin}).
     *
     * @param address the address of the first byte
     * @param bytes the machine code
     * @return the region
     */
    public static Region raw(long address, byte[] bytes) {
        return new Region(Kind.RAW, "", address, bytes);
    }

    /**
     * The address just past the last byte.
     *
     * @return {@code address + bytes.length}
     */
    public long end() {
        return address + bytes.length;
    }

    /**
     * The parts of {@code regions} in {@code [start, stop)} (unsigned addresses), as objdump's
     * {@code --start-address} and {@code --stop-address} cut its listing: a region cut at an
     * address that is not an instruction boundary decodes from there, as objdump's does.
     *
     * @param regions the regions, in any order
     * @param start the first address kept
     * @param stop the first address dropped (-1: the end of the address space)
     * @return the parts that remain, each keeping its kind and name, in the given order
     */
    public static List<Region> clip(List<Region> regions, long start, long stop) {
        List<Region> kept = new ArrayList<>();
        for (Region r : regions) {
            long from = Long.compareUnsigned(r.address(), start) >= 0 ? r.address() : start;
            long to = Long.compareUnsigned(r.end(), stop) <= 0 ? r.end() : stop;
            if (Long.compareUnsigned(from, to) < 0) {
                byte[] part = Arrays.copyOfRange(r.bytes(), (int) (from - r.address()), (int) (to - r.address()));
                kept.add(new Region(r.kind(), r.name(), from, part));
            }
        }
        return kept;
    }
}
