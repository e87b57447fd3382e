package dev.splice.weigh.model;

import java.util.List;
import java.util.Set;

/**
 * The input of the model: plugin-on pairs, plugin-off pairs, the rows skipped as bad, and the
 * contexts the campaign meant to measure (from {@code manifest.json}; empty when unknown).
 */
public record Campaign(List<Pair> pairs, List<Pair> offPairs, List<BadRow> badRows, Set<String> expectedContexts,
        boolean offFilePresent) {
    public Campaign {
        pairs = List.copyOf(pairs);
        offPairs = List.copyOf(offPairs);
        badRows = List.copyOf(badRows);
        expectedContexts = Set.copyOf(expectedContexts);
    }
}
