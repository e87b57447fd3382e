package dev.splice.listing;

import java.util.List;
import java.util.Map;

/**
 * The result of assembling a listing: its target string, the assembled regions (kind, name,
 * address and bytes, in listing order) and the address of every global label.
 *
 * @param target the extension string the listing's last {@code .target} line sets, normalized
 *     (e.g. {@code rv64gc_zba}; {@code rv64gc} without one)
 * @param regions the assembled regions, in listing order
 * @param labels the address of every global label, by name
 */
public record Assembly(String target, List<Region> regions, Map<String, Long> labels) {
    /**
     * Copies the lists, so that the record stays immutable.
     *
     * @param target the listing's target string
     * @param regions the assembled regions, in listing order
     * @param labels the address of every global label, by name
     */
    public Assembly {
        regions = List.copyOf(regions);
        labels = Map.copyOf(labels);
    }

    /**
     * The bytes of the only region (for a fragment or a one-region listing).
     *
     * @return the region's bytes
     * @throws IllegalStateException if the listing has no region or several
     */
    public byte[] bytes() {
        if (regions.size() != 1) {
            throw new IllegalStateException("the listing has " + regions.size() + " regions, not one");
        }
        return regions.get(0).bytes();
    }

    /**
     * The address of the first region.
     *
     * @return the address, or 0 for a listing without regions
     */
    public long address() {
        return regions.isEmpty() ? 0 : regions.get(0).address();
    }
}
