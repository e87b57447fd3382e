package dev.splice.listing;

import java.util.List;
import java.util.Map;

/**
 * The result of assembling a listing: its target string, the assembled regions (kind, name,
 * address and bytes, in listing order) and the address of every global label.
 */
public record Assembly(String target, List<Region> regions, Map<String, Long> labels) {
    public Assembly {
        regions = List.copyOf(regions);
        labels = Map.copyOf(labels);
    }

    /** The bytes of the only region. */
    public byte[] bytes() {
        if (regions.size() != 1) {
            throw new IllegalStateException("the listing has " + regions.size() + " regions, not one");
        }
        return regions.get(0).bytes();
    }

    /** The address of the first region. */
    public long address() {
        return regions.isEmpty() ? 0 : regions.get(0).address();
    }
}
