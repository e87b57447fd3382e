package dev.splice.bat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Translates a profile collected on a BOLTed binary back to the input binary, with perf2bolt's
 * aggregation semantics (see docs/bat.md): records are first aggregated by their addresses (memory
 * grows with distinct records, not with lines), then each distinct record is translated once.
 *
 * <ul>
 *   <li>A branch (B, and the branch part of a T record) maps its source with the branch-source rule
 *       (start of its input block) and its target exactly; cold fragments fold into their parents;
 *       a branch whose source is a return instruction is ignored, as perf2bolt ignores returns.
 *   <li>A fall-through range (F, f, and the trace part of T) becomes the block-to-block edges it
 *       crosses (BOLT's getFallthroughsInTrace), attributed to the parent function.
 *   <li>A sample (S) is kept only in no-LBR mode and is translated with the map of the fragment it
 *       hit (perf2bolt uses the parent's map for cold fragments, which is wrong).
 * </ul>
 */
public final class ProfileTranslator {
    private static final long BRANCH = 1;
    private static final long TRACE = 2;
    private static final long FALLTHROUGH = 3;
    private static final long EXTERNAL_FALLTHROUGH = 4;
    private static final long SAMPLE = 5;

    private final BatTables bat;
    private final RewrittenBinary binary;
    private final RecordTable records = new RecordTable();
    private final TreeSet<String> eventNames = new TreeSet<>();
    private long lbrRecords;
    private long sampleRecords;

    public ProfileTranslator(BatTables bat, RewrittenBinary binary) {
        this.bat = bat;
        this.binary = binary;
    }

    /** A taken branch (pre-aggregated B). */
    public void branch(long from, long to, long count, long mispreds) {
        records.add(BRANCH, from, to, 0, count, mispreds);
        lbrRecords++;
    }

    /** A taken branch followed by a fall-through range (pre-aggregated T). */
    public void trace(long branch, long from, long to, long count, long mispreds) {
        records.add(TRACE, branch, from, to, count, mispreds);
        lbrRecords++;
    }

    /** A fall-through range (pre-aggregated F). */
    public void fallthrough(long from, long to, long count) {
        records.add(FALLTHROUGH, from, to, 0, count, 0);
        lbrRecords++;
    }

    /** A fall-through range entered from outside the binary (pre-aggregated f). */
    public void externalFallthrough(long from, long to, long count) {
        records.add(EXTERNAL_FALLTHROUGH, from, to, 0, count, 0);
        lbrRecords++;
    }

    /** An instruction pointer sample without a branch stack (pre-aggregated S). */
    public void sample(long pc, long count) {
        records.add(SAMPLE, pc, 0, 0, count, 0);
        sampleRecords++;
    }

    public void eventName(String name) {
        eventNames.add(name);
    }

    /** Number of distinct records aggregated so far. */
    public int distinctRecords() {
        return records.size();
    }

    /**
     * The translated profile. In LBR mode (the default) samples are ignored, as perf2bolt does unless
     * told to aggregate basic samples; with {@code basicSamples} only samples are used.
     */
    public Fdata translate(boolean basicSamples) {
        Map<BranchKey, long[]> branches = new HashMap<>();
        Map<Fdata.Location, long[]> samples = new HashMap<>();
        LongList pairs = new LongList();
        records.forEach((kind, a, b, c, count, mispreds) -> {
            if (basicSamples) {
                if (kind == SAMPLE) {
                    doSample(a, count, samples);
                }
                return;
            }
            if (kind == BRANCH) {
                if (!binary.isReturn(a)) {
                    doBranch(a, b, count, mispreds, branches);
                }
            } else if (kind == TRACE) {
                boolean isReturn = binary.isReturn(a);
                if (!isReturn) {
                    doBranch(a, b, count, mispreds, branches);
                }
                doTrace(b, c, count, isReturn, branches, pairs);
            } else if (kind == FALLTHROUGH || kind == EXTERNAL_FALLTHROUGH) {
                doTrace(a, b, count, false, branches, pairs);
            }
        });
        List<Fdata.Branch> branchLines = new ArrayList<>(branches.size());
        branches.forEach((k, v) -> branchLines.add(new Fdata.Branch(k.from(), k.to(), v[1], v[0])));
        branchLines.sort(Comparator.comparing((Fdata.Branch x) -> key(x.from())).thenComparing(x -> key(x.to())));
        List<Fdata.Sample> sampleLines = new ArrayList<>(samples.size());
        samples.forEach((k, v) -> sampleLines.add(new Fdata.Sample(k, v[0])));
        sampleLines.sort(Comparator.comparing(x -> key(x.at())));
        return new Fdata(basicSamples, new ArrayList<>(eventNames), branchLines, sampleLines);
    }

    private static String key(Fdata.Location l) {
        return (l.name() == null ? "" : l.name()) + String.format("\0%016x", l.offset());
    }

    private record BranchKey(Fdata.Location from, Fdata.Location to) {}

    private static void bump(Map<BranchKey, long[]> branches, Fdata.Location from, Fdata.Location to, long count, long mispreds) {
        long[] v = branches.computeIfAbsent(new BranchKey(from, to), k -> new long[2]);
        v[0] += count;
        v[1] += mispreds;
    }

    /** A translated address: the (parent) function and the offset in its input function. */
    private record Place(RewrittenBinary.Function function, long offset) {}

    private Place place(long address, boolean isFrom) {
        RewrittenBinary.Function f = binary.functionContaining(address);
        if (f == null) {
            return null;
        }
        long offset = bat.translate(f.address(), address - f.address(), isFrom);
        long parent = bat.fetchParentAddress(f.address());
        if (parent != 0) {
            RewrittenBinary.Function p = binary.functionContaining(parent);
            if (p != null) {
                return new Place(p, offset);
            }
        }
        return new Place(f, offset);
    }

    private void doBranch(long from, long to, long count, long mispreds, Map<BranchKey, long[]> branches) {
        Place src = place(from, true);
        Place dst = place(to, false);
        if (src == null && dst == null) {
            return;
        }
        if (src != null && dst != null && src.function() == dst.function() && dst.offset() != 0) {
            String name = src.function().name();
            bump(branches, new Fdata.Location(name, src.offset()), new Fdata.Location(name, dst.offset()), count, mispreds);
            return;
        }
        // An inter-function branch: recorded by the source as a call; an entry from an unknown source
        // is recorded by the target (an entry from a known source would duplicate the call line).
        if (src != null) {
            Fdata.Location target = dst == null ? Fdata.Location.UNKNOWN : new Fdata.Location(dst.function().name(), dst.offset());
            bump(branches, new Fdata.Location(src.function().name(), src.offset()), target, count, mispreds);
        } else {
            bump(branches, Fdata.Location.UNKNOWN, new Fdata.Location(dst.function().name(), dst.offset()), count, mispreds);
        }
    }

    private void doTrace(long from, long to, long count, boolean isReturn, Map<BranchKey, long[]> branches, LongList pairs) {
        RewrittenBinary.Function fromFunction = binary.functionContaining(from);
        RewrittenBinary.Function toFunction = binary.functionContaining(to);
        if (fromFunction == null || toFunction == null || fromFunction != toFunction) {
            return; // out of range, or a trace across functions: invalid
        }
        RewrittenBinary.Function parent = fromFunction;
        long parentAddress = bat.fetchParentAddress(fromFunction.address());
        if (parentAddress != 0) {
            RewrittenBinary.Function p = binary.functionContaining(parentAddress);
            if (p != null) {
                parent = p;
            }
        }
        BatMap map = bat.map(fromFunction.address()).orElse(null);
        if (map == null) {
            return; // not a BAT function: perf2bolt would walk the CFG, Splice has none (docs/bat.md)
        }
        long start = from - (isReturn ? 1 : 0);
        if (start >= to) {
            return;
        }
        pairs.clear();
        int n = map.fallthroughs(start - fromFunction.address(), to - fromFunction.address(), pairs);
        for (int i = 0; i < n; i++) {
            bump(branches, new Fdata.Location(parent.name(), pairs.get(2 * i)),
                    new Fdata.Location(parent.name(), pairs.get(2 * i + 1)), count, 0);
        }
    }

    private void doSample(long pc, long count, Map<Fdata.Location, long[]> samples) {
        RewrittenBinary.Function f = binary.functionContaining(pc);
        if (f == null) {
            return;
        }
        // Translate with the map of the fragment that was hit, then name the parent.
        long offset = bat.translate(f.address(), pc - f.address(), false);
        RewrittenBinary.Function named = f;
        long parentAddress = bat.fetchParentAddress(f.address());
        if (parentAddress != 0) {
            RewrittenBinary.Function p = binary.functionContaining(parentAddress);
            if (p != null) {
                named = p;
            }
        }
        samples.computeIfAbsent(new Fdata.Location(named.name(), offset), k -> new long[1])[0] += count;
    }

    public long lbrRecords() {
        return lbrRecords;
    }

    public long sampleRecords() {
        return sampleRecords;
    }
}
