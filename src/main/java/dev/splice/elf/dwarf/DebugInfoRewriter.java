package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import dev.splice.base.Le;
import dev.splice.elf.dwarf.DieWalker.Attribute;
import dev.splice.elf.dwarf.DieWalker.Unit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Rewrites the DWARF sections of a binary whose code moved (docs/patch.md, "Debug information"):
 * {@code .debug_line} (rows at the new addresses), {@code .debug_aranges}, the address
 * attributes of the DIEs (low_pc/high_pc, entry_pc, call return and call addresses, and the
 * {@code DW_OP_addr} operands of expression attributes ({@link Expressions}): in place,
 * {@code .debug_info} keeps its size), and the range and location lists they refer to
 * ({@code .debug_rnglists}/{@code .debug_loclists}, DWARF 4's {@code .debug_ranges}/{@code .debug_loc}),
 * rebuilt, and {@code .debug_frame}'s FDEs of moved functions ({@link DebugFrame}). What it cannot
 * rewrite exactly it refuses with an {@link UnsupportedDwarfException}.
 */
public final class DebugInfoRewriter {
    /** The sections this class reads or rewrites. */
    public static final List<String> SECTIONS = List.of(".debug_info", ".debug_abbrev", ".debug_line", ".debug_aranges",
            ".debug_rnglists", ".debug_loclists", ".debug_ranges", ".debug_loc", DebugFrame.SECTION, AddressTable.SECTION);

    private static final int TAG_COMPILE_UNIT = 0x11;
    private static final int TAG_PARTIAL_UNIT = 0x3c;
    private static final int TAG_SKELETON_UNIT = 0x4a;
    private static final int TAG_GNU_CALL_SITE = 0x4109;
    private static final int AT_STMT_LIST = 0x10;
    private static final int AT_LOW_PC = 0x11;
    private static final int AT_HIGH_PC = 0x12;
    private static final int AT_START_SCOPE = 0x2c;
    private static final int AT_ENTRY_PC = 0x52;
    private static final int AT_RANGES = 0x55;
    private static final int AT_CALL_RETURN_PC = 0x7d;
    private static final int AT_CALL_PC = 0x81;
    private static final int AT_ADDR_BASE = 0x73;
    private static final int AT_RNGLISTS_BASE = 0x74;
    private static final int AT_LOCLISTS_BASE = 0x8c;
    private static final int AT_GNU_LOCVIEWS = 0x2137;
    /** DW_AT_lo_user: a vendor attribute whose value means nothing, filling the place of a longer one. */
    private static final int AT_PADDING = 0x2000;
    /** The attributes of class loclist (with DW_FORM_sec_offset) in DWARF 4 and 5. */
    private static final java.util.Set<Integer> LOCATION_ATTRIBUTES = java.util.Set.of(0x02, 0x19, 0x2a, 0x38, 0x40, 0x46,
            0x48, 0x4a, 0x4d);
    private static final int FORM_ADDR = 0x01;
    private static final int FORM_SEC_OFFSET = 0x17;
    private static final int FORM_EXPRLOC = 0x18;
    private static final int FORM_ADDRX = 0x1b;
    private static final int FORM_LOCLISTX = 0x22;
    private static final int FORM_RNGLISTX = 0x23;

    private final Function<String, byte[]> sections;
    private final AddressMap map;
    private final Map<String, byte[]> changed = new LinkedHashMap<>();
    private byte[] info;
    private Map<Long, Long> lineUnits = Map.of();
    private AddressLists rnglists;
    private AddressLists loclists;
    private AddressLists ranges;
    private AddressLists loc;
    private AddressTable addresses;
    /** The base address of the unit being walked (its DW_AT_low_pc). */
    private long base;
    /** The .debug_addr entries of the unit being walked. */
    private AddressTable.Slots slots;
    /** The unit's DW_AT_rnglists_base and DW_AT_loclists_base (-1: none). */
    private long rnglistsBase;
    private long loclistsBase;
    /**
     * Whether the unit's lists are written anew with absolute addresses whatever they cover: its
     * base address is a .debug_addr entry, which moved code it shares may change.
     */
    private boolean absoluteLists;
    /** The address attributes through .debug_addr of the DIE being walked that claimed their entry. */
    private final List<Attribute> claimed = new ArrayList<>();

    private DebugInfoRewriter(Function<String, byte[]> sections, AddressMap map) {
        this.sections = sections;
        this.map = map;
    }

    /**
     * The new contents of the debug sections that change.
     *
     * @param sections a section's bytes by name (null when the binary has none of that name)
     * @param map where the code went
     * @return the new bytes of each section that changes, by name (empty when none does or
     *     the binary has no DWARF)
     * @throws UnsupportedDwarfException when some debug information over moved code cannot be
     *     rewritten exactly
     */
    public static Map<String, byte[]> rewrite(Function<String, byte[]> sections, AddressMap map) {
        DebugInfoRewriter r = new DebugInfoRewriter(sections, map);
        r.run();
        return r.changed;
    }

    private void run() {
        byte[] line = sections.apply(".debug_line");
        if (line != null) {
            LineTableRewriter lines = new LineTableRewriter(map);
            byte[] newLine = lines.rewrite(line);
            if (newLine != null) {
                changed.put(".debug_line", newLine);
                lineUnits = lines.unitOffsets();
            }
        }
        byte[] aranges = sections.apply(Aranges.SECTION);
        if (aranges != null) {
            byte[] newAranges = Aranges.rewrite(aranges, map);
            if (newAranges != null) {
                changed.put(Aranges.SECTION, newAranges);
            }
        }
        byte[] frame = sections.apply(DebugFrame.SECTION);
        if (frame != null) {
            byte[] newFrame = DebugFrame.rewrite(frame, map);
            if (newFrame != null) {
                changed.put(DebugFrame.SECTION, newFrame);
            }
        }
        byte[] original = sections.apply(DieWalker.SECTION);
        byte[] abbrev = sections.apply(Abbreviations.SECTION);
        if (original == null || abbrev == null) {
            return;
        }
        info = original.clone();
        addresses = new AddressTable(sections.apply(AddressTable.SECTION), map);
        slots = addresses.unit(-1); // until a unit's DIE names its base
        rnglists = lists(".debug_rnglists", false, true);
        loclists = lists(".debug_loclists", true, true);
        ranges = lists(".debug_ranges", false, false);
        loc = lists(".debug_loc", true, false);
        new DieWalker(original, abbrev).walk(this::die);
        for (AddressLists l : new AddressLists[] {rnglists, loclists, ranges, loc}) {
            if (l != null) {
                byte[] rebuilt = l.bytes();
                byte[] before = sections.apply(l.name());
                if (before == null || !java.util.Arrays.equals(rebuilt, before)) {
                    changed.put(l.name(), rebuilt);
                }
            }
        }
        if (!java.util.Arrays.equals(info, original)) {
            changed.put(DieWalker.SECTION, info);
        }
        byte[] addr = addresses.bytes();
        if (addr != null) {
            changed.put(AddressTable.SECTION, addr);
        }
    }

    private AddressLists lists(String name, boolean locations, boolean dwarf5) {
        byte[] bytes = sections.apply(name);
        return bytes == null || bytes.length == 0 ? null : new AddressLists(name, bytes, locations, dwarf5, map);
    }

    private void die(Unit unit, int offset, long code, List<Attribute> attributes) {
        int tag = unit.abbreviations().get(code).tag();
        boolean unitDie = tag == TAG_COMPILE_UNIT || tag == TAG_PARTIAL_UNIT || tag == TAG_SKELETON_UNIT;
        Attribute low = null;
        Attribute high = null;
        Attribute entry = null;
        boolean hasRanges = false;
        for (Attribute a : attributes) {
            switch (a.name()) {
                case AT_LOW_PC -> low = a;
                case AT_HIGH_PC -> high = a;
                case AT_ENTRY_PC -> entry = a;
                case AT_RANGES -> hasRanges = true;
                default -> { }
            }
        }
        claimed.clear();
        if (unitDie) {
            unit(attributes, low, offset);
        }
        for (Attribute a : attributes) {
            int name = a.name();
            if (name == AT_STMT_LIST && !lineUnits.isEmpty()) {
                Long moved = lineUnits.get(a.value());
                if (moved == null) {
                    throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "DW_AT_stmt_list 0x" + Long.toHexString(a.value())
                            + " is no unit of .debug_line");
                }
                put(a, moved, offset);
            } else if ((name == AT_RANGES || name == AT_START_SCOPE) && a.form() == FORM_RNGLISTX) {
                indexedList(rnglists, rnglistsBase, a, offset);
            } else if (LOCATION_ATTRIBUTES.contains(name) && a.form() == FORM_LOCLISTX) {
                indexedList(loclists, loclistsBase, a, offset);
            } else if (name == AT_RANGES || name == AT_START_SCOPE) {
                put(a, list(unit.version() >= 5 ? rnglists : ranges, a, offset, unit), offset);
            } else if (LOCATION_ATTRIBUTES.contains(name) && a.form() == FORM_SEC_OFFSET) {
                put(a, list(unit.version() >= 5 ? loclists : loc, a, offset, unit), offset);
            } else if (name == AT_GNU_LOCVIEWS) {
                throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "location views (DW_AT_GNU_locviews) are not handled");
            } else if (name == AT_CALL_RETURN_PC) {
                put(a, map.end(address(a, offset)), offset);
            } else if (name == AT_CALL_PC) {
                put(a, map.start(address(a, offset)), offset);
            } else if (a.form() == FORM_EXPRLOC) {
                expression(a, offset);
            }
        }
        if (low != null && high != null) {
            range(unit, offset, unitDie ? code : -1, low, high, entry);
        } else if (low != null && !unitDie && !hasRanges) {
            long old = address(low, offset);
            put(low, tag == TAG_GNU_CALL_SITE ? map.end(old) : map.start(old), offset); // a GNU call site's low_pc is its return address
        }
        if (entry != null && (high == null || low == null)) {
            if (!isAddress(entry)) {
                throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "DW_AT_entry_pc as an offset without low_pc and high_pc");
            }
            put(entry, map.start(address(entry, offset)), offset);
        }
        for (Attribute a : attributes) { // what names no moved code keeps its entry's value
            if (isAddrx(a.form()) && !claimed.contains(a)) {
                slots.claim(a.value(), slots.address(a.value(), DieWalker.SECTION, offset), DieWalker.SECTION, offset);
            }
        }
    }

    /**
     * A unit's DIE: its base address, its .debug_addr entries and list offset tables; a base
     * address through .debug_addr makes every list of the unit absolute (the entry may be shared
     * with moved code).
     */
    private void unit(List<Attribute> attributes, Attribute low, int offset) {
        long addrBase = -1;
        rnglistsBase = -1;
        loclistsBase = -1;
        for (Attribute a : attributes) {
            switch (a.name()) {
                case AT_ADDR_BASE -> addrBase = a.value();
                case AT_RNGLISTS_BASE -> rnglistsBase = a.value();
                case AT_LOCLISTS_BASE -> loclistsBase = a.value();
                default -> { }
            }
        }
        slots = addresses.unit(addrBase);
        absoluteLists = low != null && isAddrx(low.form());
        base = low == null ? 0 : low.form() == FORM_ADDR ? low.value() : absoluteLists ? address(low, offset) : 0;
        if (absoluteLists && low != null) {
            claimed.add(low); // only the base of lists, which are all written with absolute addresses now
        }
    }

    /** A DW_FORM_rnglistx / loclistx reference: the list through the unit's offset table. */
    private void indexedList(AddressLists lists, long tableBase, Attribute a, int offset) {
        if (lists == null || tableBase < 0) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "a list index without its section or the unit's list base");
        }
        lists.indexed(a.value(), tableBase, base, slots, absoluteLists, offset);
    }

    /** Whether the attribute holds an address (DW_FORM_addr or through .debug_addr), not an offset from low_pc. */
    private static boolean isAddress(Attribute a) {
        return a.form() == FORM_ADDR || isAddrx(a.form());
    }

    private static boolean isAddrx(int form) {
        return form == FORM_ADDRX || form >= 0x29 && form <= 0x2c;
    }

    /**
     * The {@code DW_OP_addr} operands of an expression attribute (a location, a call site's value
     * or target, ...) that name moved code, rewritten in place to where that code starts now.
     */
    private void expression(Attribute a, int offset) {
        ByteReader r = new ByteReader(info, a.offset(), a.offset() + a.size(), DieWalker.SECTION);
        long length = r.uleb();
        int start = r.position();
        Expressions.addresses(info, start, (int) (start + length), DieWalker.SECTION, offset, at -> {
            long old = Le.u64(info, at);
            if (map.moves(old, old + 1)) {
                Le.putU64(info, at, map.start(old));
            }
        }, index -> slots.claimStart(index, DieWalker.SECTION, offset));
    }

    /**
     * A DIE's contiguous range [low_pc, high_pc), its entry_pc with it; {@code unitCode} the
     * abbreviation code of a unit's DIE (-1 for others).
     */
    private void range(Unit unit, int offset, long unitCode, Attribute low, Attribute high, Attribute entry) {
        boolean unitDie = unitCode >= 0;
        long from = address(low, offset);
        long to = isAddress(high) ? address(high, offset) : from + high.value();
        if (!map.moves(from, to)) {
            return;
        }
        List<long[]> moved = new ArrayList<>(1);
        map.ranges(from, to, (a, b) -> moved.add(new long[] {a, b}));
        if (moved.size() != 1 && unitDie && entry == null) {
            unitRanges(unit, offset, unitCode, high, moved);
            return;
        }
        if (moved.size() != 1) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, (unitDie ? "the compile unit's" : "a DIE's")
                    + " range [0x" + Long.toHexString(from) + ", 0x" + Long.toHexString(to)
                    + ") becomes " + moved.size() + " ranges (DW_AT_low_pc/DW_AT_high_pc cannot say so; DW_AT_ranges could)");
        }
        long newFrom = moved.get(0)[0];
        long newTo = moved.get(0)[1];
        if (entry != null) {
            long oldEntry = isAddress(entry) ? address(entry, offset) : from + entry.value();
            long newEntry = map.start(oldEntry);
            put(entry, isAddress(entry) ? newEntry : newEntry - newFrom, offset);
        }
        put(low, newFrom, offset);
        put(high, isAddress(high) ? newTo : newTo - newFrom, offset);
    }

    /**
     * A unit whose one range moved code divides: its DIE gets DW_AT_ranges in DW_AT_high_pc's
     * place (DW_AT_low_pc stays: the base address), under an abbreviation of its own in a copy of
     * the unit's table appended to {@code .debug_abbrev}; an 8-byte high_pc leaves 4 bytes, held by
     * a vendor attribute ({@link #AT_PADDING}) so that {@code .debug_info} keeps its size.
     */
    private void unitRanges(Unit unit, int offset, long code, Attribute high, List<long[]> moved) {
        if (high.size() != 4 && high.size() != 8) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "the unit's range must become DW_AT_ranges, but its DW_AT_high_pc of "
                    + high.size() + " bytes cannot hold the reference");
        }
        boolean dwarf5 = unit.version() >= 5;
        String name = dwarf5 ? ".debug_rnglists" : ".debug_ranges";
        if ((dwarf5 ? rnglists : ranges) == null) {
            AddressLists created = new AddressLists(name, new byte[0], false, dwarf5, map);
            if (dwarf5) {
                rnglists = created;
            } else {
                ranges = created;
            }
        }
        long listOffset = (dwarf5 ? rnglists : ranges).add(moved);
        Abbreviations.Abbreviation old = unit.abbreviations().get(code);
        int n = old.attributes().length;
        int extra = high.size() == 8 ? 1 : 0;
        int[] attributes = new int[n + extra];
        int[] forms = new int[n + extra];
        long[] constants = new long[n + extra];
        for (int i = 0, j = 0; i < n; i++, j++) {
            attributes[j] = old.attributes()[i];
            forms[j] = old.forms()[i];
            constants[j] = old.constants()[i];
            if (attributes[j] == AT_HIGH_PC) {
                attributes[j] = AT_RANGES;
                forms[j] = FORM_SEC_OFFSET;
                if (extra == 1) {
                    j++;
                    attributes[j] = AT_PADDING;
                    forms[j] = 0x06; // DW_FORM_data4
                }
            }
        }
        byte[] abbrev = changed.getOrDefault(Abbreviations.SECTION, sections.apply(Abbreviations.SECTION));
        byte[] table = unit.abbreviations().withReplaced(sections.apply(Abbreviations.SECTION), code,
                new Abbreviations.Abbreviation(old.tag(), old.children(), attributes, forms, constants));
        byte[] grown = java.util.Arrays.copyOf(abbrev, abbrev.length + table.length);
        System.arraycopy(table, 0, grown, abbrev.length, table.length);
        changed.put(Abbreviations.SECTION, grown);
        Le.putU32(info, unit.abbreviationsField(), abbrev.length);
        fits(listOffset, 32, offset);
        Le.putU32(info, high.offset(), (int) listOffset);
        if (extra == 1) {
            Le.putU32(info, high.offset() + 4, 0);
        }
    }

    private long list(AddressLists lists, Attribute a, int offset, Unit unit) {
        if (a.form() != FORM_SEC_OFFSET && !(unit.version() < 5 && a.form() == 0x06)) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "a list reference of form 0x" + Integer.toHexString(a.form())
                    + " (DW_FORM_rnglistx / loclistx need the offset tables, not handled)");
        }
        if (lists == null) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "a list reference without its section");
        }
        return lists.offset(a.value(), base, slots, absoluteLists);
    }

    private long address(Attribute a, int offset) {
        if (isAddrx(a.form())) {
            return slots.address(a.value(), DieWalker.SECTION, offset);
        }
        if (a.form() != FORM_ADDR) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "an address of form 0x" + Integer.toHexString(a.form()));
        }
        return a.value();
    }

    /**
     * Writes a new value into an attribute's place, in its form's size; an address through
     * .debug_addr claims its entry instead.
     */
    private void put(Attribute a, long value, int offset) {
        if (isAddrx(a.form())) {
            slots.claim(a.value(), value, DieWalker.SECTION, offset);
            claimed.add(a);
            return;
        }
        if (value == a.value()) {
            return;
        }
        int at = a.offset();
        switch (a.form()) {
            case FORM_ADDR, 0x07 -> Le.putU64(info, at, value);
            case 0x06, FORM_SEC_OFFSET -> {
                fits(value, 32, offset);
                Le.putU32(info, at, (int) value);
            }
            case 0x05 -> {
                fits(value, 16, offset);
                Le.putU16(info, at, (int) value);
            }
            case 0x0b -> {
                fits(value, 8, offset);
                info[at] = (byte) value;
            }
            case 0x0f -> { // udata: padded to the same length
                fits(value, 7 * a.size(), offset);
                for (int i = 0; i < a.size(); i++) {
                    info[at + i] = (byte) ((value >>> (7 * i)) & 0x7f | (i < a.size() - 1 ? 0x80 : 0));
                }
            }
            default -> throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "a value of form 0x" + Integer.toHexString(a.form())
                    + " cannot be rewritten");
        }
    }

    private static void fits(long value, int bits, int offset) {
        if (bits < 64 && (value < 0 || value >>> bits != 0)) {
            throw new UnsupportedDwarfException(DieWalker.SECTION, offset, "the new value 0x" + Long.toHexString(value)
                    + " does not fit the attribute's " + bits + " bits");
        }
    }
}
