package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import dev.splice.base.ByteWriter;
import dev.splice.base.Le;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The range lists ({@code .debug_rnglists}, DWARF 4's {@code .debug_ranges}) or the location
 * lists ({@code .debug_loclists}, {@code .debug_loc}) of a rewrite: a list that covers no moved
 * code stays where it is; one that does is written anew at the end of the section with absolute
 * addresses, every entry mapped through the {@link AddressMap} (split where moved code divides
 * it), and its old bytes become empty lists (DWARF 5: end-of-list bytes; DWARF 4's pairs stay, no
 * DIE names them). {@link #offset} gives a DIE's reference its new value; a section without moved
 * code keeps every byte.
 */
final class AddressLists {
    /** DWARF 5 entry kinds (DW_RLE_* and DW_LLE_*) this class reads. */
    private static final int END = 0;
    private static final long BASE_SELECTION = -1L;

    private final String name;
    private final byte[] section;
    private final boolean locations;
    private final boolean dwarf5;
    private final AddressMap map;
    private final ByteWriter out = new ByteWriter();
    private final Map<Long, Long> newOffsets = new HashMap<>();
    /** The byte spans of lists written anew, to be emptied. */
    private final List<int[]> emptied = new ArrayList<>();
    /** {@code DW_OP_addr} operands of lists kept in place that name moved code: {offset, new address}. */
    private final List<long[]> operands = new ArrayList<>();
    /** Offset table entries (DW_FORM_rnglistx / loclistx) of lists written anew: {offset, new value}. */
    private final List<long[]> tableEntries = new ArrayList<>();
    /** The offset of the last DWARF 5 contribution's header. */
    private int lastHeader;

    /**
     * One entry: its range (none for a default location) and, for a location list, its
     * expression and where the expression starts in the section.
     */
    private record Entry(long from, long to, boolean hasRange, byte[] expression, int expressionAt) {}

    /**
     * @param name the section's name, for messages
     * @param section its bytes
     * @param locations location lists (with expressions) or range lists
     * @param dwarf5 the DWARF 5 encoding (DW_RLE_/DW_LLE_ entries under a header) or DWARF 4's pairs
     */
    AddressLists(String name, byte[] section, boolean locations, boolean dwarf5, AddressMap map) {
        this.name = name;
        this.section = section;
        this.locations = locations;
        this.dwarf5 = dwarf5;
        this.map = map;
        out.bytes(section);
        if (dwarf5 && section.length == 0) { // a section made for new lists: its header
            out.u32(0);
            out.u16(5);
            out.u8(8);
            out.u8(0);
            out.u32(0);
        } else if (dwarf5) {
            int at = 0;
            while (at < section.length) { // every contribution's header; new lists extend the last one
                ByteReader r = UnitLength.unit(section, at, name);
                int end = r.position() + r.remaining();
                lastHeader = at;
                at = end;
            }
        }
    }

    /** The name of the section. */
    String name() {
        return name;
    }

    /**
     * The new offset of the list at {@code offset}, of a unit whose base address is {@code base}
     * and whose .debug_addr entries are {@code slots}; {@code absolute}: written anew with absolute
     * addresses even when it covers no moved code (its unit's base address may change). A list
     * with entries through .debug_addr is always written anew (its entries keep no index).
     */
    long offset(long offset, long base, AddressTable.Slots slots, boolean absolute) {
        Long known = newOffsets.get(offset);
        if (known != null) {
            return known;
        }
        if (offset < (dwarf5 ? 12 : 0) || offset >= section.length) {
            throw new UnsupportedDwarfException(name, offset, "a list outside the section");
        }
        ByteReader r = new ByteReader(section, (int) offset, section.length, name);
        boolean[] indexed = {false};
        List<Entry> entries = dwarf5 ? readDwarf5(r, base, slots, indexed) : readDwarf4(r, base);
        boolean moves = absolute || indexed[0];
        for (Entry e : entries) {
            moves |= e.hasRange && map.moves(e.from, e.to);
        }
        List<long[]> moved = locations ? movedOperands(entries, offset, slots) : List.of();
        long at = offset;
        if (moves) {
            at = out.size();
            write(entries, moved);
            if (dwarf5) {
                emptied.add(new int[] {(int) offset, r.position()});
            }
        } else {
            operands.addAll(moved);
        }
        newOffsets.put(offset, at);
        return at;
    }

    /**
     * The {@code DW_OP_addr} operands of the entries' expressions that name moved code, as
     * {section offset of the operand, the address it names now} ({@link Expressions}: an operation
     * it does not know, or an address through .debug_addr, is refused).
     */
    private List<long[]> movedOperands(List<Entry> entries, long list, AddressTable.Slots slots) {
        List<long[]> moved = new ArrayList<>(0);
        for (Entry e : entries) {
            Expressions.addresses(section, e.expressionAt, e.expressionAt + e.expression.length, name, (int) list, at -> {
                long old = Le.u64(section, at);
                if (map.moves(old, old + 1)) {
                    moved.add(new long[] {at, map.start(old)});
                }
            }, index -> slots.claimStart(index, name, list));
        }
        return moved;
    }

    /**
     * The list named by entry {@code index} of the offset table at {@code tableBase}
     * (DW_FORM_rnglistx / loclistx, from the unit's DW_AT_rnglists_base or DW_AT_loclists_base):
     * its new offset, written into the table entry when the list is written anew. The attribute
     * keeps its index.
     */
    void indexed(long index, long tableBase, long base, AddressTable.Slots slots, boolean absolute, int die) {
        if (!dwarf5 || tableBase < 12 || index < 0 || tableBase + 4 * (index + 1) > section.length) {
            throw new UnsupportedDwarfException(name, tableBase, "list index " + index + " (from the DIE at 0x" + Integer.toHexString(die)
                    + ") lies outside the offset table");
        }
        int entry = (int) (tableBase + 4 * index);
        long old = tableBase + (Le.u32(section, entry) & 0xffffffffL);
        long now = offset(old, base, slots, absolute);
        if (now != old) {
            tableEntries.add(new long[] {entry, now - tableBase});
        }
    }

    /**
     * Adds a new list of absolute ranges (already at their new places).
     *
     * @return its offset
     */
    long add(List<long[]> ranges) {
        long at = out.size();
        if (!dwarf5) {
            out.u64(BASE_SELECTION);
            out.u64(0);
        }
        for (long[] r : ranges) {
            if (dwarf5) {
                out.u8(6); // DW_RLE_start_end
            }
            out.u64(r[0]);
            out.u64(r[1]);
        }
        if (dwarf5) {
            out.u8(END);
        } else {
            out.u64(0);
            out.u64(0);
        }
        return at;
    }

    /** The section with the new lists (a DWARF 5 header's unit length set). */
    byte[] bytes() {
        byte[] b = out.toByteArray();
        for (int[] span : emptied) {
            Arrays.fill(b, span[0], span[1], (byte) END);
        }
        for (long[] o : operands) {
            Le.putU64(b, (int) o[0], o[1]);
        }
        for (long[] t : tableEntries) {
            Le.putU32(b, (int) t[0], (int) t[1]);
        }
        if (dwarf5) {
            Le.putU32(b, lastHeader, b.length - lastHeader - 4);
        }
        return b;
    }

    private List<Entry> readDwarf5(ByteReader r, long base, AddressTable.Slots slots, boolean[] indexed) {
        List<Entry> entries = new ArrayList<>();
        while (true) {
            int at = r.position();
            int kind = r.u8();
            if (kind == END) {
                return entries;
            }
            long from;
            long to;
            boolean hasRange = true;
            switch (locations ? kind : kind == 5 ? 6 : kind == 6 ? 7 : kind == 7 ? 8 : kind) { // DW_RLE_ as DW_LLE_ numbers
                case 1 -> { // base_addressx
                    indexed[0] = true;
                    base = slots.address(r.uleb(), name, at);
                    continue;
                }
                case 2 -> { // startx_endx
                    indexed[0] = true;
                    from = slots.address(r.uleb(), name, at);
                    to = slots.address(r.uleb(), name, at);
                }
                case 3 -> { // startx_length
                    indexed[0] = true;
                    from = slots.address(r.uleb(), name, at);
                    to = from + r.uleb();
                }
                case 4 -> { // offset_pair
                    from = base + r.uleb();
                    to = base + r.uleb();
                }
                case 5 -> { // DW_LLE_default_location
                    from = 0;
                    to = 0;
                    hasRange = false;
                }
                case 6 -> { // base_address
                    base = r.u64();
                    continue;
                }
                case 7 -> { // start_end
                    from = r.u64();
                    to = r.u64();
                }
                case 8 -> { // start_length
                    from = r.u64();
                    to = from + r.uleb();
                }
                default -> throw new UnsupportedDwarfException(name, at, "list entry kind " + kind
                        + (kind == 9 ? " (DW_LLE_GNU_view_pair)" : "") + " is not handled");
            }
            entries.add(locations ? expression(r, from, to, hasRange, length(r, r.uleb())) : new Entry(from, to, hasRange, null, -1));
        }
    }

    private List<Entry> readDwarf4(ByteReader r, long base) {
        List<Entry> entries = new ArrayList<>();
        while (true) {
            long from = r.u64();
            long to = r.u64();
            if (from == 0 && to == 0) {
                return entries;
            }
            if (from == BASE_SELECTION) {
                base = to;
                continue;
            }
            entries.add(locations ? expression(r, base + from, base + to, true, r.u16()) : new Entry(base + from, base + to, true, null, -1));
        }
    }

    private static Entry expression(ByteReader r, long from, long to, boolean hasRange, int length) {
        int at = r.position();
        return new Entry(from, to, hasRange, r.bytes(length), at);
    }

    private static int length(ByteReader r, long length) {
        if (length < 0 || length > r.remaining()) {
            throw r.error(r.position(), "an expression of " + length + " bytes runs past the section's end");
        }
        return (int) length;
    }

    /**
     * Writes a list with absolute addresses, every entry at its new place, the {@code moved}
     * operands of its expressions naming the new code.
     */
    private void write(List<Entry> entries, List<long[]> moved) {
        if (!dwarf5) {
            out.u64(BASE_SELECTION);
            out.u64(0);
        }
        for (Entry e : entries) {
            if (!e.hasRange) {
                out.u8(5); // DW_LLE_default_location
                expression(e, moved);
                continue;
            }
            map.ranges(e.from, e.to, (from, to) -> {
                if (dwarf5) {
                    out.u8(locations ? 7 : 6); // DW_LLE_start_end, DW_RLE_start_end
                }
                out.u64(from);
                out.u64(to);
                if (locations) {
                    expression(e, moved);
                }
            });
        }
        if (dwarf5) {
            out.u8(END);
        } else {
            out.u64(0);
            out.u64(0);
        }
    }

    private void expression(Entry e, List<long[]> moved) {
        byte[] expression = e.expression;
        for (long[] o : moved) {
            int into = (int) o[0] - e.expressionAt;
            if (into >= 0 && into < expression.length) {
                expression = expression == e.expression ? expression.clone() : expression;
                Le.putU64(expression, into, o[1]);
            }
        }
        if (dwarf5) {
            out.uleb(expression.length);
        } else {
            out.u16(expression.length);
        }
        out.bytes(expression);
    }
}
