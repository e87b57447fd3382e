package dev.splice.weigh.campaign;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A failed quality gate of a context in {@code weights.json} (docs/weigh-model.md lists the gates):
 * its name and the numbers that made it fail.
 *
 * @param gate the gate's name, e.g. {@code ess-below-minimum}
 * @param numbers named values, in insertion order: {@code Double} (written as a number, or null when
 *     not finite), {@code Integer}, or anything else (written as its string)
 */
public record Reason(String gate, Map<String, Object> numbers) {
    /**
     * Copies the numbers, keeping their order (values may be null).
     *
     * @param gate see {@link #gate()}
     * @param numbers see {@link #numbers()}
     */
    public Reason {
        numbers = Collections.unmodifiableMap(new LinkedHashMap<>(numbers));
    }
}
