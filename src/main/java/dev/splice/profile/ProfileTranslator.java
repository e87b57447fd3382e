package dev.splice.profile;

import dev.splice.base.LongList;
import dev.splice.bat.BatMap;
import dev.splice.bat.BatTables;
import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.x86.X86Cfg;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Translates a profile collected on a BOLTed binary back to the input binary, with perf2bolt's
 * semantics (see docs/bat.md). Each record is translated as it arrives and only the translated
 * result is aggregated, so memory depends on the number of distinct translated edges (bounded by
 * the binary), not on the number of input lines.
 *
 * <ul>
 *   <li>A branch (B, and the branch part of a T record) maps its source with the branch-source rule
 *       (start of its input block) and its target exactly; cold fragments fold into their parents;
 *       a branch whose source is a return instruction is ignored, as perf2bolt ignores returns.
 *   <li>A fall-through range (F, f, and the trace part of T) becomes the block-to-block edges it
 *       crosses (BOLT's getFallthroughsInTrace), attributed to the parent function.
 *   <li>A branch from an old entry that a Splice output keeps as a trampoline to the moved copy (a
 *       cold fragment whose map starts at input offset 0, which no BOLT fragment does: BOLT never
 *       splits off the entry block) to its parent's entry is left out: the call to the old entry
 *       already counts as the call to the function, as in the input (perf2bolt-22 writes it as a
 *       call of the function from its own entry).
 *   <li>A sample (S) counts only in basic-sample mode and is translated with the map of the fragment
 *       it hit (perf2bolt uses the parent's map for cold fragments, which is wrong).
 * </ul>
 */
final class ProfileTranslator {
    private static final int UNKNOWN = -1;

    private final BatTables bat;
    private final RewrittenBinary binary;
    private final boolean basicSamples;
    private final List<RewrittenBinary.BoltFunction> functions;
    // Per function index: its map (null if the table has none) and the index its profile goes to.
    private final BatMap[] maps;
    private final int[] owner;
    // Per function: a Splice trampoline (see the class comment), whose jump to its parent's entry is no edge.
    private final boolean[] trampoline;
    // Aggregates keyed by function indices and input offsets.
    private final RecordTable branches = new RecordTable();
    private final RecordTable entries = new RecordTable();
    private final RecordTable samples = new RecordTable();
    private final TreeSet<String> eventNames = new TreeSet<>();
    private final LongList pairs = new LongList();
    // Raw records not yet translated, aggregated on their full key: a profile repeats the same
    // (from, to) many times, and translation is linear in the counts, so translating each distinct
    // raw record once with its summed counts gives the same result. Bounded: flushed when large.
    private final RawCounts rawBranches = new RawCounts();
    private final RawCounts rawTraces = new RawCounts();
    // Fall-through ranges entered from outside their function (f records, and T records whose branch
    // lies elsewhere): perf2bolt's CFG walk treats them differently in functions without tables.
    private final RawCounts rawOutsideTraces = new RawCounts();
    // Per function index: its CFG (functions without tables, RISC-V), computed on first use.
    private final ControlFlowGraph[] cfgs;
    private final boolean[] cfgDone;
    // Where code without tables enters other functions (BOLT's secondary entry points), on first use.
    private Map<Integer, List<Integer>> externalEntries;
    private static final int RAW_LIMIT = 1 << 17;
    // The largest (end - address) of any function: a fall-through range longer than this cannot lie
    // within one function, so it is dropped before aggregation (doTrace would drop it anyway).
    private final long maxSpan;
    private long records;
    private Map<String, RewrittenBinary.BoltFunction> functionsByName;
    // A direct-mapped cache of address lookups (profiles revisit the same addresses): per slot the
    // address, its function index (-1: none) and whether it holds a return instruction.
    // One slot = four longs side by side (one cache line): the address; its function index << 1 |
    // return flag; its translated offset as a branch source; as anything else.
    private static final int CACHE_BITS = 16;
    private final long[] cache = new long[4 << CACHE_BITS];

    public ProfileTranslator(BatTables bat, RewrittenBinary binary) {
        this(bat, binary, false);
    }

    /** With {@code basicSamples}, only samples (S) count, as perf2bolt's basic (no-LBR) mode. */
    public ProfileTranslator(BatTables bat, RewrittenBinary binary, boolean basicSamples) {
        this.bat = bat;
        this.binary = binary;
        this.basicSamples = basicSamples;
        this.functions = binary.functions();
        for (int i = 0; i < cache.length; i += 4) {
            cache[i] = -1;
            cache[i + 1] = -2; // address -1 is in no function: index -1, not a return
        }
        int n = functions.size();
        long span = 0;
        for (RewrittenBinary.BoltFunction f : functions) {
            span = Math.max(span, f.end() - f.address());
        }
        maxSpan = span;
        maps = new BatMap[n];
        owner = new int[n];
        trampoline = new boolean[n];
        cfgs = new ControlFlowGraph[n];
        cfgDone = new boolean[n];
        for (int i = 0; i < n; i++) {
            long address = functions.get(i).address();
            maps[i] = bat.map(address).orElse(null);
            owner[i] = i;
            long parent = bat.fetchParentAddress(address);
            if (parent != 0) {
                int p = binary.indexContaining(parent);
                if (p >= 0) {
                    owner[i] = p;
                    trampoline[i] = maps[i] != null && maps[i].size() > 0 && maps[i].inputOffset(0) == 0;
                }
            }
        }
    }

    /** The cache slot of an address, filled on a miss. */
    private int slot(long address) {
        int slot = (int) ((address * 0x9E3779B97F4A7C15L) >>> (64 - CACHE_BITS)) << 2;
        if (cache[slot] != address) {
            int f = binary.indexContaining(address);
            cache[slot] = address;
            // perf2bolt decodes a function with a table, or one it does not disassemble, at any address;
            // one it disassembled itself (no table, a CFG) only at its instruction starts.
            boolean isReturn = binary.isReturn(address)
                    && (f < 0 || maps[f] != null || cfg(f) == null || cfg(f).isInstructionStart(address - functions.get(f).address()));
            cache[slot + 1] = (long) f << 1 | (isReturn ? 1 : 0);
            cache[slot + 2] = f < 0 ? 0 : offset(f, address, true);
            cache[slot + 3] = f < 0 ? 0 : offset(f, address, false);
        }
        return slot;
    }

    private int functionIndex(long address) {
        return (int) (cache[slot(address) + 1] >> 1);
    }

    private boolean isReturn(long address) {
        return (cache[slot(address) + 1] & 1) != 0;
    }

    /** A taken branch (pre-aggregated B). */
    public void branch(long from, long to, long count, long mispreds) {
        records++;
        if (!basicSamples) {
            rawBranch(from, to, count, mispreds);
        }
    }

    private void rawBranch(long from, long to, long count, long mispreds) {
        if (!rawBranches.add(from, to, count, mispreds)) {
            translateBranch(from, to, count, mispreds);
            return;
        }
        if (rawBranches.size() >= RAW_LIMIT) {
            flush();
        }
    }

    private void translateBranch(long from, long to, long count, long mispreds) {
        if (!isReturn(from) && !binary.isJumpPastEnd(from)) {
            doBranch(from, to, count, mispreds);
        }
    }

    private void rawTrace(long from, long to, long count, boolean fromOutside) {
        if (from > to || to - from >= maxSpan) {
            return; // backwards, or longer than any function: invalid, as in doTrace
        }
        RawCounts table = fromOutside ? rawOutsideTraces : rawTraces;
        if (!table.add(from, to, count, 0)) {
            doTrace(from, to, count, false, fromOutside);
            return;
        }
        if (table.size() >= RAW_LIMIT) {
            flush();
        }
    }

    /** Translates the pending raw records into the aggregates. */
    private void flush() {
        rawBranches.forEach((from, to, count, mispreds) -> translateBranch(from, to, count, mispreds));
        rawBranches.clear();
        rawTraces.forEach((from, to, count, unused) -> doTrace(from, to, count, false, false));
        rawTraces.clear();
        rawOutsideTraces.forEach((from, to, count, unused) -> doTrace(from, to, count, false, true));
        rawOutsideTraces.clear();
    }

    /** A taken branch followed by a fall-through range (pre-aggregated T, or a branch stack entry). */
    public void trace(long branch, long from, long to, long count, long mispreds) {
        records++;
        if (basicSamples) {
            return;
        }
        // The branch part is exactly a B record; the trace part after a return starts one byte early.
        rawBranch(branch, from, count, mispreds);
        if (from > to || to - from >= maxSpan) {
            return; // invalid whether or not the branch is a return: skip the return lookup
        }
        int f = functionIndex(from);
        boolean outside = f < 0 || functionIndex(branch) != f || branch - functions.get(f).address() >= functions.get(f).size();
        if (isReturn(branch)) {
            doTrace(from, to, count, true, outside);
        } else {
            rawTrace(from, to, count, outside);
        }
    }

    /** A fall-through range (pre-aggregated F). */
    public void fallthrough(long from, long to, long count) {
        records++;
        if (!basicSamples) {
            rawTrace(from, to, count, false);
        }
    }

    /** A fall-through range entered from outside the binary (pre-aggregated f). */
    public void externalFallthrough(long from, long to, long count) {
        records++;
        if (!basicSamples) {
            rawTrace(from, to, count, true);
        }
    }

    /** An instruction pointer sample without a branch stack (pre-aggregated S). */
    public void sample(long pc, long count) {
        records++;
        if (!basicSamples) {
            return;
        }
        int f = functionIndex(pc);
        if (f < 0) {
            return;
        }
        // Translate with the map of the fragment that was hit, then attribute to the parent.
        long offset = pc - functions.get(f).address();
        if (maps[f] != null) {
            offset = maps[f].translate(offset, false);
        }
        samples.add(owner[f], offset, count, 0);
    }

    /** Adds what another translator (over another part of the same profile) aggregated. */
    public void mergeFrom(ProfileTranslator other) {
        flush();
        other.flush();
        other.branches.forEach(branches::add);
        other.entries.forEach(entries::add);
        other.samples.forEach(samples::add);
        eventNames.addAll(other.eventNames);
        records += other.records;
    }

    public void eventName(String name) {
        eventNames.add(name);
    }

    public long records() {
        return records;
    }

    /** Number of distinct translated edges (or samples) aggregated so far. */
    public int distinctRecords() {
        flush();
        return basicSamples ? samples.size() : branches.size();
    }

    private long offset(int f, long address, boolean isFrom) {
        long offset = address - functions.get(f).address();
        return maps[f] == null ? offset : maps[f].translate(offset, isFrom);
    }

    private void doBranch(long from, long to, long count, long mispreds) {
        int fromSlot = slot(from);
        int src = (int) (cache[fromSlot + 1] >> 1);
        long fromOffset = cache[fromSlot + 2];
        int toSlot = slot(to);
        int dst = (int) (cache[toSlot + 1] >> 1);
        long toOffset = cache[toSlot + 3];
        if (src < 0 && dst < 0) {
            return;
        }
        int srcOwner = src < 0 ? UNKNOWN : owner[src];
        int dstOwner = dst < 0 ? UNKNOWN : owner[dst];
        if (src >= 0 && trampoline[src] && dstOwner == srcOwner && toOffset == 0) {
            return; // a Splice trampoline's jump to the copy of its function
        }
        if (src >= 0 && dst >= 0 && srcOwner == dstOwner && toOffset != 0) {
            branches.add(key(srcOwner, dstOwner), fromOffset << 32 | toOffset, count, mispreds);
            return;
        }
        // Between functions: the source records a call (to an unknown target if there is none);
        // the target records an entry; an entry from an unknown source is written as its own line
        // (one from a known source would repeat the call line).
        if (dst >= 0) {
            entries.add(dstOwner, toOffset, count, 0);
        }
        branches.add(key(srcOwner, dstOwner), fromOffset << 32 | toOffset, count, mispreds);
    }

    private static long key(int from, int to) {
        return (long) from << 32 | (to & 0xffffffffL);
    }

    /** The CFG perf2bolt builds for a function without a table (by index), built once; null if none. */
    private ControlFlowGraph cfg(int f) {
        if (!cfgDone[f]) {
            if (externalEntries == null) {
                externalEntries = binary.externalEntries(i -> maps[i] == null);
            }
            List<Integer> entries = externalEntries.getOrDefault(f, List.of());
            cfgs[f] = binary.cfg(f, entries.stream().mapToInt(Integer::intValue).toArray());
            cfgDone[f] = true;
        }
        return cfgs[f];
    }

    private void doTrace(long from, long to, long count, boolean isReturn, boolean fromOutside) {
        int f = functionIndex(from);
        if (f < 0 || functionIndex(to) != f) {
            return; // out of range, or a trace across functions: invalid
        }
        BatMap map = maps[f];
        if (map == null) {
            // No table: perf2bolt walks the CFG it builds itself (cfg.riscv.RiscVCfg, cfg.x86.X86Cfg; docs/bat.md).
            ControlFlowGraph cfg = cfg(f);
            if (cfg == null) {
                return;
            }
            long base = functions.get(f).address();
            pairs.clear();
            int n = cfg.fallthroughs(from - base, to - base, fromOutside, isReturn, pairs);
            long k = key(owner[f], owner[f]);
            for (int i = 0; i < n; i++) {
                branches.add(k, pairs.get(2 * i) << 32 | pairs.get(2 * i + 1), count, 0);
            }
            return;
        }
        long start = from - (isReturn ? 1 : 0);
        if (start >= to) {
            return;
        }
        long base = functions.get(f).address();
        pairs.clear();
        int n = map.fallthroughs(start - base, to - base, pairs);
        long k = key(owner[f], owner[f]);
        for (int i = 0; i < n; i++) {
            branches.add(k, pairs.get(2 * i) << 32 | pairs.get(2 * i + 1), count, 0);
        }
    }

    private Fdata.Location location(int f, long offset) {
        return f == UNKNOWN ? Fdata.Location.UNKNOWN : new Fdata.Location(functions.get(f).name(), offset);
    }

    /** The translated profile so far. */
    public Fdata translate() {
        flush();
        functionsByName = new HashMap<>();
        List<Fdata.Branch> branchLines = new ArrayList<>(branches.size());
        branches.forEach((k, offsets, count, mispreds) -> {
            int from = (int) (k >> 32);
            int to = (int) k;
            long fromOffset = offsets >>> 32;
            long toOffset = offsets & 0xffffffffL;
            remember(from);
            remember(to);
            branchLines.add(new Fdata.Branch(location(from, fromOffset), location(to, to == UNKNOWN ? 0 : toOffset), mispreds, count));
        });
        branchLines.sort(Comparator.comparing(Fdata.Branch::from, LOCATION_ORDER).thenComparing(Fdata.Branch::to, LOCATION_ORDER));
        mergeEqualLocations(branchLines);
        List<Fdata.Sample> sampleLines = new ArrayList<>(samples.size());
        samples.forEach((f, offset, count, unused) -> {
            remember((int) f);
            sampleLines.add(new Fdata.Sample(location((int) f, offset), count));
        });
        sampleLines.sort(Comparator.comparing(Fdata.Sample::at, LOCATION_ORDER));
        for (int i = sampleLines.size() - 1; i > 0; i--) {
            if (sampleLines.get(i).at().equals(sampleLines.get(i - 1).at())) {
                sampleLines.set(i - 1, new Fdata.Sample(sampleLines.get(i).at(), sampleLines.get(i).count() + sampleLines.get(i - 1).count()));
                sampleLines.remove(i);
            }
        }
        return new Fdata(basicSamples, new ArrayList<>(eventNames), branchLines, sampleLines, true);
    }

    /**
     * Lines of two functions with the same name (code BOLT left in place named after the input's
     * function that BOLT also rewrote, see --input) are one location: sum them (sorted input).
     */
    private static void mergeEqualLocations(List<Fdata.Branch> lines) {
        int w = 0;
        for (int i = 0; i < lines.size(); i++) {
            Fdata.Branch b = lines.get(i);
            if (w > 0 && lines.get(w - 1).from().equals(b.from()) && lines.get(w - 1).to().equals(b.to())) {
                Fdata.Branch a = lines.get(w - 1);
                lines.set(w - 1, new Fdata.Branch(a.from(), a.to(), a.mispreds() + b.mispreds(), a.count() + b.count()));
            } else {
                lines.set(w++, b);
            }
        }
        lines.subList(w, lines.size()).clear();
    }

    private void remember(int f) {
        if (f != UNKNOWN) {
            functionsByName.putIfAbsent(functions.get(f).name(), functions.get(f));
        }
    }

    /** Output order: by function name (unknown first), then offset. */
    private static final Comparator<Fdata.Location> LOCATION_ORDER = Comparator
            .comparing(Fdata.Location::name, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
            .thenComparing(Fdata.Location::offset, Long::compareUnsigned);

    /** The function behind a location name used in the last {@link #translate()}. */
    public RewrittenBinary.BoltFunction function(String locationName) {
        return functionsByName == null ? null : functionsByName.get(locationName);
    }

    /** Counts of inter-function branches into each location, from any source (perf2bolt's entry data). */
    public Map<Fdata.Location, Long> entryCounts() {
        flush();
        Map<Fdata.Location, Long> out = new HashMap<>();
        entries.forEach((f, offset, count, unused) -> out.merge(location((int) f, offset), count, Long::sum));
        return out;
    }

    public RewrittenBinary binary() {
        return binary;
    }
}
