package dev.splice.patch;

import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What the output's relocations need to know of the runtime: its placement-dependent words, and
 * its symbols in {@code .symtab} by address, so that a reference into the runtime names the
 * function (or data) that holds its target, as BOLT expects, not the start of the code.
 *
 * @param references the runtime's placement-dependent words
 * @param named the runtime's symbols: start address to {end, symbol index}
 */
record RuntimeSymbols(List<RuntimeReference> references, NavigableMap<Long, long[]> named) {
    /** No runtime. */
    static final RuntimeSymbols NONE = new RuntimeSymbols(List.of(), new TreeMap<>());

    /** {@return the start and index of the runtime's symbol holding {@code address}, or null} */
    Map.Entry<Long, Integer> holding(long address) {
        Map.Entry<Long, long[]> e = named.floorEntry(address);
        return e == null || address >= e.getValue()[0] ? null : Map.entry(e.getKey(), (int) e.getValue()[1]);
    }
}
