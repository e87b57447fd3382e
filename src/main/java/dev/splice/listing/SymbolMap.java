package dev.splice.listing;

import dev.splice.base.Hex;
import dev.splice.isa.TextBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Names addresses as {@code symbol+offset} for listing comments. Built from (name, address, size)
 * entries, for example the functions of an ELF file; lookups are binary searches.
 */
public final class SymbolMap {
    /**
     * A named address range. A size of 0 covers only the address itself.
     *
     * @param name the symbol's name
     * @param address the first address it covers
     * @param size the number of bytes it covers (0: only its address)
     */
    public record Entry(String name, long address, long size) {}

    /** A map without symbols: every lookup misses. */
    public static final SymbolMap EMPTY = new SymbolMap(List.of());

    private final String[] names;
    /** The names as listing text (ASCII bytes), made on first use: most maps never print. */
    private volatile byte[][] nameBytes;
    private final long[] starts;
    private final long[] sizes;

    /**
     * A map of the entries; where ranges overlap, an address is named by the nearest entry
     * starting at or before it that covers it.
     *
     * @param entries the named ranges, in any order
     */
    public SymbolMap(List<Entry> entries) {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparingLong(Entry::address).thenComparing(Entry::name));
        names = new String[sorted.size()];
        starts = new long[sorted.size()];
        sizes = new long[sorted.size()];
        for (int i = 0; i < sorted.size(); i++) {
            names[i] = sorted.get(i).name();
            starts[i] = sorted.get(i).address();
            sizes[i] = sorted.get(i).size();
        }
    }

    /** The index of the entry containing {@code address}, or -1. */
    private int find(long address) {
        int lo = 0;
        int hi = starts.length - 1;
        int best = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0) {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // Several entries may start at or before the address; take the nearest one covering it.
        for (int i = best; i >= 0 && i > best - 4; i--) {
            long offset = address - starts[i];
            if (offset == 0 || Long.compareUnsigned(offset, sizes[i]) < 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Appends "name" or "name+0xoffset" for the address and returns true, or returns false.
     *
     * @param out receives the name
     * @param address the address to name
     * @return whether a symbol covers the address
     */
    public boolean append(StringBuilder out, long address) {
        int i = find(address);
        if (i < 0) {
            return false;
        }
        out.append(names[i]);
        long offset = address - starts[i];
        if (offset != 0) {
            out.append("+0x");
            Hex.append(out, offset);
        }
        return true;
    }

    /**
     * Appends "name" or "name+0xoffset" as ASCII bytes and returns true, or returns false (the
     * listing writer's form: no allocation per lookup).
     *
     * @param out receives the name
     * @param address the address to name
     * @return whether a symbol covers the address
     */
    public boolean append(TextBuffer out, long address) {
        int i = find(address);
        if (i < 0) {
            return false;
        }
        out.append(nameBytes()[i]);
        long offset = address - starts[i];
        if (offset != 0) {
            out.append("+0x").appendHex(offset);
        }
        return true;
    }

    private byte[][] nameBytes() {
        byte[][] b = nameBytes;
        if (b == null) {
            b = new byte[names.length][];
            for (int i = 0; i < b.length; i++) {
                b[i] = TextBuffer.ascii(names[i]);
            }
            nameBytes = b;
        }
        return b;
    }

    /**
     * The name as {@link #append(StringBuilder, long)} writes it, or null.
     *
     * @param address the address to name
     * @return "name" or "name+0xoffset", or null when no symbol covers the address
     */
    public String describe(long address) {
        StringBuilder sb = new StringBuilder();
        return append(sb, address) ? sb.toString() : null;
    }

    /** Entries whose start lies in [from, to), in address order (for function headings). */
    List<Entry> startingIn(long from, long to) {
        int lo = 0;
        int hi = starts.length;
        while (lo < hi) { // first entry with start >= from
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], from) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        List<Entry> result = new ArrayList<>();
        for (int i = lo; i < starts.length && Long.compareUnsigned(starts[i], to) < 0; i++) {
            result.add(new Entry(names[i], starts[i], sizes[i]));
        }
        return result;
    }
}
