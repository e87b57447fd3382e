package dev.splice.listing;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The result of assembling a listing: its target string, the assembled regions (kind, name,
 * address and bytes, in listing order), the address of every global label, the fixups (the places
 * whose bytes depend on the address or on external names) and the integer registers the
 * instructions write.
 *
 * @param target the extension string the listing's last {@code .target} line sets, normalized
 *     (e.g. {@code rv64gc_zba}; {@code rv64gc} without one)
 * @param regions the assembled regions, in listing order
 * @param labels the address of every global label, by name
 * @param file the name the text was assembled under (for error messages)
 * @param fixups the places to re-encode when the region moves or external names change, in
 *     region and offset order
 * @param writtenRegisters the integer registers (1 to 31) that some instruction may write
 */
public record Assembly(String target, List<Region> regions, Map<String, Long> labels, String file,
        List<Fixup> fixups, Set<Integer> writtenRegisters) {
    /**
     * Copies the collections, so that the record stays immutable.
     *
     * @param target the listing's target string
     * @param regions the assembled regions, in listing order
     * @param labels the address of every global label, by name
     * @param file the name the text was assembled under
     * @param fixups the places that depend on the address or on external names
     * @param writtenRegisters the integer registers some instruction may write
     */
    public Assembly {
        regions = List.copyOf(regions);
        labels = Map.copyOf(labels);
        fixups = List.copyOf(fixups);
        writtenRegisters = Collections.unmodifiableSet(new TreeSet<>(writtenRegisters));
    }

    /**
     * The bytes of the only region (for a fragment or a one-region listing).
     *
     * @return the region's bytes
     * @throws IllegalStateException if the listing has no region or several
     */
    public byte[] bytes() {
        return only().bytes();
    }

    /**
     * The address of the first region.
     *
     * @return the address, or 0 for a listing without regions
     */
    public long address() {
        return regions.isEmpty() ? 0 : regions.get(0).address();
    }

    /**
     * The bytes of the only region as assembling it at {@code address} with these values of the
     * external names would give them, without assembling again: a copy of the bytes with every
     * fixup re-encoded. Fast enough to place one fragment at hundreds of thousands of points.
     *
     * @param address where the region lands
     * @param symbols the value of every external name the fixups use
     * @return the bytes
     * @throws IllegalStateException if the listing has no region or several
     * @throws ListingException if a name has no value or a value does not fit its instruction
     *     ({@code file:line:column} of the instruction)
     */
    public byte[] relocate(long address, Map<String, Long> symbols) {
        byte[] out = only().bytes().clone();
        relocateInto(out, 0, address, symbols);
        return out;
    }

    /**
     * Writes what {@link #relocate} returns into {@code out} at {@code at}, without allocating.
     *
     * @param out the buffer
     * @param at where the region's first byte goes
     * @param address where the region lands
     * @param symbols the value of every external name the fixups use
     * @throws IllegalStateException if the listing has no region or several
     * @throws IndexOutOfBoundsException if the region does not fit in {@code out} at {@code at}
     * @throws ListingException if a name has no value or a value does not fit its instruction
     */
    public void relocateInto(byte[] out, int at, long address, Map<String, Long> symbols) {
        byte[] bytes = only().bytes();
        System.arraycopy(bytes, 0, out, at, bytes.length);
        for (Fixup f : fixups) {
            long s;
            if (f.symbol() == null) {
                s = 0;
            } else if (f.symbol().equals(Fixup.REGION)) {
                s = address;
            } else {
                Long value = symbols.get(f.symbol());
                if (value == null) {
                    throw new ListingException(file, f.line(), f.column(), "no value for external name '" + f.symbol() + "'");
                }
                s = value;
            }
            String problem = f.apply(out, at, address, s + f.addend());
            if (problem != null) {
                throw new ListingException(file, f.line(), f.column(), problem);
            }
        }
    }

    private Region only() {
        if (regions.size() != 1) {
            throw new IllegalStateException("the listing has " + regions.size() + " regions, not one");
        }
        return regions.get(0);
    }
}
