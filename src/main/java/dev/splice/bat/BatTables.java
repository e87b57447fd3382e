package dev.splice.bat;

import dev.splice.base.LongList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The BOLT address translation tables of one binary (the `.note.bolt_bat` note), with BOLT's
 * queries. Hot functions and cold fragments are kept in table order (ascending output address in
 * everything BOLT writes). Immutable; build one with {@link #decodeNote}, {@link #decodeDescriptor}
 * or {@link BatWriter}.
 */
public final class BatTables {
    /** The ELF section BOLT writes the note into. */
    public static final String SECTION_NAME = ".note.bolt_bat";
    /** The note owner. */
    public static final String NOTE_OWNER = "BOLT";
    /** BOLT's NT_BOLT_BAT note type. */
    public static final int NT_BOLT_BAT = 1;

    private final List<BatFunction> functions;
    private final List<BatColdFragment> coldFragments;
    // Query indexes: every fragment address, sorted, with its map and its parent (0 for hot ones).
    private final long[] fragmentAddresses;
    private final BatMap[] fragmentMaps;
    private final long[] fragmentParents;
    private final BatFunction[] fragmentHot;
    private final TreeMap<Long, BlockTable> blockTables = new TreeMap<>();

    /**
     * Tables from their hot function and cold fragment tables (BOLT's in-memory form after parse).
     * Builds the query indexes once; where two fragments share an output address, the first one in
     * table order answers the queries.
     *
     * @param functions the hot functions, in table order
     * @param coldFragments the cold fragments, in table order
     */
    public BatTables(List<BatFunction> functions, List<BatColdFragment> coldFragments) {
        this.functions = List.copyOf(functions);
        this.coldFragments = List.copyOf(coldFragments);
        int n = functions.size() + coldFragments.size();
        Long[] order = new Long[0];
        TreeMap<Long, Integer> byAddress = new TreeMap<>();
        List<Object> all = new ArrayList<>(n);
        for (BatFunction f : functions) {
            byAddress.putIfAbsent(f.address(), all.size());
            all.add(f);
        }
        for (BatColdFragment c : coldFragments) {
            byAddress.putIfAbsent(c.address(), all.size());
            all.add(c);
        }
        order = byAddress.keySet().toArray(order);
        fragmentAddresses = new long[order.length];
        fragmentMaps = new BatMap[order.length];
        fragmentParents = new long[order.length];
        fragmentHot = new BatFunction[order.length];
        TreeMap<Long, BatFunction> hotByAddress = new TreeMap<>();
        for (BatFunction f : functions) {
            hotByAddress.putIfAbsent(f.address(), f);
        }
        for (int i = 0; i < order.length; i++) {
            Object o = all.get(byAddress.get(order[i]));
            fragmentAddresses[i] = order[i];
            if (o instanceof BatFunction f) {
                fragmentMaps[i] = f.map();
                fragmentHot[i] = f;
            } else {
                BatColdFragment c = (BatColdFragment) o;
                fragmentMaps[i] = c.map();
                fragmentParents[i] = c.parentAddress();
                fragmentHot[i] = hotByAddress.get(c.parentAddress());
            }
        }
    }

    /**
     * The hot function table.
     *
     * @return the hot functions, in table order (unmodifiable)
     */
    public List<BatFunction> functions() {
        return functions;
    }

    /**
     * The cold fragment table.
     *
     * @return the cold fragments, in table order (unmodifiable)
     */
    public List<BatColdFragment> coldFragments() {
        return coldFragments;
    }

    // ---- codec ---------------------------------------------------------------------------------

    /**
     * BOLT's parse: decodes a whole note (header, owner, descriptor), e.g. the contents of
     * {@code .note.bolt_bat}.
     *
     * @param note the note's bytes
     * @param source names the bytes in error messages (a file and section)
     * @return the tables
     * @throws dev.splice.base.BadInputException if the note is not BOLT's or the tables are malformed
     *     ({@code source: offset N: what})
     */
    public static BatTables decodeNote(byte[] note, String source) {
        return BatCodec.decodeNote(note, source);
    }

    /**
     * Decodes a note descriptor (the tables without the note header).
     *
     * @param descriptor the descriptor's bytes
     * @param source names the bytes in error messages
     * @return the tables
     * @throws dev.splice.base.BadInputException if the tables are malformed or followed by trailing bytes
     */
    public static BatTables decodeDescriptor(byte[] descriptor, String source) {
        return BatCodec.decodeDescriptor(descriptor, 0, descriptor.length, source);
    }

    /**
     * Encodes the descriptor exactly as BOLT 22 writes it.
     *
     * @return the descriptor's bytes
     */
    public byte[] encodeDescriptor() {
        return BatCodec.encodeDescriptor(this);
    }

    /**
     * Encodes the whole note (header, "BOLT" owner, descriptor, padding to 4 bytes), as in the section.
     *
     * @return the section contents
     */
    public byte[] encodeNote() {
        return BatCodec.encodeNote(encodeDescriptor());
    }

    /**
     * BOLT's enabledFor: true if the binary has a {@code .note.bolt_bat} section.
     *
     * @param elf the binary
     * @return whether BOLT wrote tables into it
     */
    public static boolean enabledFor(dev.splice.elf.ElfFile elf) {
        return elf.section(SECTION_NAME).isPresent();
    }

    /**
     * The tables of a BOLTed binary.
     *
     * @param elf a binary written by {@code llvm-bolt --enable-bat}
     * @return its tables
     * @throws dev.splice.base.BadInputException if it has none or they are malformed
     */
    public static BatTables read(dev.splice.elf.ElfFile elf) {
        dev.splice.elf.Section section = elf.section(SECTION_NAME).orElseThrow(() -> new dev.splice.base.BadInputException(
                elf.name() + ": no " + SECTION_NAME + " section (not written by llvm-bolt --enable-bat)"));
        return decodeNote(elf.contents(section), elf.name() + ": section " + SECTION_NAME);
    }

    // ---- queries with BOLT's semantics -----------------------------------------------------------

    private int indexOf(long address) {
        int i = Arrays.binarySearch(fragmentAddresses, address);
        return i >= 0 ? i : -1;
    }

    /**
     * BOLT's isBATFunction: true if the table has a map for a fragment (hot or cold) at this output
     * address.
     *
     * @param address a fragment's output address
     * @return whether the tables translate that fragment
     */
    public boolean isBatFunction(long address) {
        return indexOf(address) >= 0;
    }

    /**
     * The map of the fragment at this output address.
     *
     * @param address a fragment's output address
     * @return its map, or empty when the tables have no fragment there
     */
    public Optional<BatMap> map(long address) {
        int i = indexOf(address);
        return i < 0 ? Optional.empty() : Optional.of(fragmentMaps[i]);
    }

    /**
     * BOLT's translate: the input offset for {@code offset} in the fragment at {@code fragmentAddress};
     * the offset unchanged when there is no map for that address.
     *
     * @param fragmentAddress the output address of the fragment (hot function or cold fragment)
     * @param offset the output offset, from {@code fragmentAddress}
     * @param isBranchSource whether the offset is the source of a branch (see {@link BatMap#translate})
     * @return the input offset, in the input function (the hot parent's, for a cold fragment)
     */
    public long translate(long fragmentAddress, long offset, boolean isBranchSource) {
        int i = indexOf(fragmentAddress);
        if (i < 0) {
            return offset;
        }
        return fragmentMaps[i].translate(offset, isBranchSource);
    }

    /**
     * BOLT's fetchParentAddress: the parent's output address for a cold fragment, else 0. Profile
     * translation folds a cold fragment's samples into the parent with it.
     *
     * @param fragmentAddress a fragment's output address
     * @return the hot parent's output address, or 0 for a hot function or an unknown address
     */
    public long fetchParentAddress(long fragmentAddress) {
        int i = indexOf(fragmentAddress);
        return i < 0 ? 0 : fragmentParents[i];
    }

    /**
     * BOLT's getFallthroughsInTrace for absolute output addresses {@code from} and {@code to} in the
     * fragment at {@code fragmentAddress}: empty (not null) for trivial traces; null when the table has
     * no such fragment. Pairs are input offsets (in the hot parent's input function).
     *
     * @param fragmentAddress the output address of the fragment that holds the trace
     * @param from the output address where the trace starts (the target of the previous branch)
     * @param to the output address where the trace ends (the source of the next branch)
     * @return the fall-through edges as {@code {from, to}} input offset pairs, or null
     */
    public List<long[]> fallthroughsInTrace(long fragmentAddress, long from, long to) {
        if (from >= to) {
            return List.of();
        }
        int i = indexOf(fragmentAddress);
        if (i < 0) {
            return null;
        }
        LongList out = new LongList();
        int n = fragmentMaps[i].fallthroughs(from - fragmentAddress, to - fragmentAddress, out);
        List<long[]> pairs = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            pairs.add(new long[] {out.get(2 * k), out.get(2 * k + 1)});
        }
        return pairs;
    }

    private BatFunction hot(long address) {
        int i = indexOf(address);
        return i < 0 || fragmentParents[i] != 0 ? null : fragmentHot[i];
    }

    /**
     * BOLT's getBFHash: the input function's hash for a hot function at this output address (0 if
     * none).
     *
     * @param address a hot function's output address
     * @return the input function's hash
     */
    public long functionHash(long address) {
        BatFunction f = hot(address);
        return f == null ? 0 : f.hash();
    }

    /**
     * BOLT's getNumBasicBlocks: the input function's basic block count for a hot function at this
     * output address (0 if none).
     *
     * @param address a hot function's output address
     * @return the input function's basic block count
     */
    public long blockCount(long address) {
        BatFunction f = hot(address);
        return f == null ? 0 : f.blockCount();
    }

    /**
     * The secondary entry point input offsets of the hot function at this output address.
     *
     * @param address a hot function's output address
     * @return the input offsets, in table order; empty if none or no hot function is there
     */
    public List<Long> secondaryEntryPoints(long address) {
        BatFunction f = hot(address);
        return f == null ? List.of() : f.secondaryEntryPoints();
    }

    /**
     * BOLT's getSecondaryEntryPointId: 1 + the position of {@code inputOffset} among the secondary
     * entry points of the hot function at {@code address}; 0 when it is not one.
     *
     * @param address a hot function's output address
     * @param inputOffset an input offset in that function
     * @return the entry point id, or 0
     */
    public int secondaryEntryPointId(long address, long inputOffset) {
        List<Long> points = secondaryEntryPoints(address);
        int i = points.indexOf(inputOffset);
        return i < 0 ? 0 : i + 1;
    }

    /**
     * Where a symbol in the output binary points in the input binary: parent function and entry id.
     *
     * @param parentAddress the output address of the hot function the symbol belongs to
     * @param inputOffset the input offset the symbol (plus offset) names in that function
     * @param entryPointId 0 for the main entry or no entry point, else the secondary entry point's id
     */
    public record SymbolTarget(long parentAddress, long inputOffset, int entryPointId) {}

    /**
     * BOLT's translateSymbol: a symbol at {@code symbolAddress} inside the fragment at
     * {@code fragmentAddress}, plus {@code offset}, names the hot parent function and its entry point.
     *
     * @param fragmentAddress the output address of the fragment that holds the symbol
     * @param symbolAddress the symbol's output address
     * @param offset added to the symbol's translated input offset (an addend)
     * @return the parent function, input offset and entry point id
     */
    public SymbolTarget translateSymbol(long fragmentAddress, long symbolAddress, long offset) {
        long parent = fetchParentAddress(fragmentAddress);
        long hotAddress = parent != 0 ? parent : fragmentAddress;
        long outputOffset = (symbolAddress - fragmentAddress) & 0xffffffffL;
        long inputOffset = (translate(fragmentAddress, outputOffset, false) + offset) & 0xffffffffL;
        int id = inputOffset != 0 ? secondaryEntryPointId(hotAddress, inputOffset) : 0;
        return new SymbolTarget(hotAddress, inputOffset, id);
    }

    /**
     * translateSymbol for a symbol address alone: the fragment is the one at or before the address
     * (the tables know every fragment's start, not its end; pass the fragment when it is known).
     *
     * @param symbolAddress the symbol's output address
     * @param offset added to the symbol's translated input offset (an addend)
     * @return the parent function, input offset and entry point id; empty if no fragment starts at
     *     or before the address
     */
    public Optional<SymbolTarget> translateSymbol(long symbolAddress, long offset) {
        int i = Arrays.binarySearch(fragmentAddresses, symbolAddress);
        if (i < 0) {
            i = -i - 2;
        }
        if (i < 0) {
            return Optional.empty();
        }
        return Optional.of(translateSymbol(fragmentAddresses[i], symbolAddress, offset));
    }

    /**
     * One input basic block as the table records it (BOLT's BBHashMap entry).
     *
     * @param inputOffset the block's input offset
     * @param index the block's index in the input function
     * @param hash the block's 64-bit hash
     */
    public record Block(long inputOffset, long index, long hash) {}

    /**
     * BOLT's getBBHashMap: the input blocks of the hot function at {@code address} (from its own and
     * its cold fragments' block entries; the first entry for an input offset wins), by input offset.
     * Built on first use and kept.
     *
     * @param address a hot function's output address
     * @return its input blocks; empty if no hot function is there
     */
    public BlockTable blocks(long address) {
        synchronized (blockTables) {
            BlockTable table = blockTables.get(address);
            if (table == null) {
                table = buildBlocks(address);
                blockTables.put(address, table);
            }
            return table;
        }
    }

    private BlockTable buildBlocks(long address) {
        TreeMap<Long, Block> blocks = new TreeMap<>();
        BatFunction f = hot(address);
        if (f != null) {
            addBlocks(blocks, f.map());
            for (BatColdFragment c : coldFragments) {
                if (c.parentAddress() == address) {
                    addBlocks(blocks, c.map());
                }
            }
        }
        return new BlockTable(Collections.unmodifiableNavigableMap(blocks));
    }

    private static void addBlocks(TreeMap<Long, Block> blocks, BatMap map) {
        for (int i = 0; i < map.size(); i++) {
            if (!map.isBranch(i)) {
                blocks.putIfAbsent(map.inputOffset(i), new Block(map.inputOffset(i), map.blockIndex(i), map.blockHash(i)));
            }
        }
    }

    /**
     * The input blocks of one function, by input offset.
     *
     * @param byOffset the blocks by input offset (unmodifiable)
     */
    public record BlockTable(java.util.NavigableMap<Long, Block> byOffset) {
        /**
         * Whether an input block starts at this offset (BBHashMap's isInputBlock).
         *
         * @param inputOffset an input offset in the function
         * @return true if a block starts there
         */
        public boolean isInputBlock(long inputOffset) {
            return byOffset.containsKey(inputOffset);
        }

        /**
         * The block starting at or before the offset (the containing block), or null.
         *
         * @param inputOffset an input offset in the function
         * @return the containing block, or null before the first block
         */
        public Block containing(long inputOffset) {
            var e = byOffset.floorEntry(inputOffset);
            return e == null ? null : e.getValue();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatTables t && functions.equals(t.functions) && coldFragments.equals(t.coldFragments);
    }

    @Override
    public int hashCode() {
        return functions.hashCode() * 31 + coldFragments.hashCode();
    }
}
