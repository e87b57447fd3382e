package dev.splice.bat;

import dev.splice.base.LongList;
import java.util.Arrays;

/**
 * The address translation map of one fragment (a hot function or a cold fragment), as BOLT keeps it:
 * entries sorted by output offset (equal offsets keep their insertion order), each mapping an output
 * offset to an input offset in the input function. A branch entry marks a control-flow source (branch
 * or call instruction); any other entry marks the start of an input basic block and carries that
 * block's 64-bit hash and its index in the input function, as the table stores them.
 *
 * <p>Offsets are BOLT's 32-bit unsigned values; accessors return them as non-negative longs.
 */
public final class BatMap {
    private final int[] outputOffsets;
    private final int[] inputOffsets;
    private final boolean[] branches;
    private final long[] blockHashes;
    private final long[] blockIndices;

    BatMap(int[] outputOffsets, int[] inputOffsets, boolean[] branches, long[] blockHashes, long[] blockIndices) {
        this.outputOffsets = outputOffsets;
        this.inputOffsets = inputOffsets;
        this.branches = branches;
        this.blockHashes = blockHashes;
        this.blockIndices = blockIndices;
    }

    /**
     * One entry, as a value (for building maps and for tests).
     *
     * @param outputOffset the output offset, from the fragment's output address (32 bits unsigned)
     * @param inputOffset the input offset in the input function (31 bits: the table shifts it left
     *     to make room for the branch bit)
     * @param branch whether the entry marks a branch or call source (BOLT's BRANCHENTRY bit); else it
     *     starts an input basic block
     * @param blockHash the input block's hash (ignored for a branch entry)
     * @param blockIndex the input block's index in the input function (ignored for a branch entry)
     */
    public record Entry(long outputOffset, long inputOffset, boolean branch, long blockHash, long blockIndex) {
        /**
         * Checks that the offsets fit the table's fields.
         *
         * @param outputOffset the output offset (32 bits)
         * @param inputOffset the input offset (31 bits)
         * @param branch whether the entry marks a branch or call source
         * @param blockHash the input block's hash
         * @param blockIndex the input block's index
         * @throws IllegalArgumentException if an offset does not fit
         */
        public Entry {
            checkOffset(outputOffset, "output offset");
            checkOffset(inputOffset, "input offset");
            if (inputOffset > 0x7fffffffL) {
                throw new IllegalArgumentException("input offset " + inputOffset + " does not fit in 31 bits");
            }
        }

        /**
         * A block-start entry (BOLT's {@code BBOutputOffset -> BBInputOffset << 1}).
         *
         * @param outputOffset the block's output offset
         * @param inputOffset the block's input offset
         * @param blockHash the input block's hash
         * @param blockIndex the input block's index in the input function
         * @return the entry
         */
        public static Entry block(long outputOffset, long inputOffset, long blockHash, long blockIndex) {
            return new Entry(outputOffset, inputOffset, false, blockHash, blockIndex);
        }

        /**
         * A branch-source entry (BOLT's {@code InputOffset << 1 | BRANCHENTRY}).
         *
         * @param outputOffset the branch instruction's output offset
         * @param inputOffset the branch instruction's input offset
         * @return the entry
         */
        public static Entry branch(long outputOffset, long inputOffset) {
            return new Entry(outputOffset, inputOffset, true, 0, 0);
        }
    }

    static void checkOffset(long offset, String what) {
        if (offset < 0 || offset > 0xffffffffL) {
            throw new IllegalArgumentException(what + " " + offset + " does not fit in 32 bits");
        }
    }

    /**
     * A map from entries, stably sorted by output offset (equal offsets keep their order, as in
     * BOLT's multimap). Branch entries get hash and index 0, as the table stores them.
     *
     * @param entries the entries, in any order
     * @return the map
     */
    public static BatMap of(java.util.List<Entry> entries) {
        Entry[] sorted = entries.toArray(new Entry[0]);
        Arrays.sort(sorted, (a, b) -> Long.compare(a.outputOffset(), b.outputOffset())); // stable
        int n = sorted.length;
        int[] out = new int[n];
        int[] in = new int[n];
        boolean[] br = new boolean[n];
        long[] hashes = new long[n];
        long[] indices = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = (int) sorted[i].outputOffset();
            in[i] = (int) sorted[i].inputOffset();
            br[i] = sorted[i].branch();
            hashes[i] = sorted[i].branch() ? 0 : sorted[i].blockHash();
            indices[i] = sorted[i].branch() ? 0 : sorted[i].blockIndex();
        }
        return new BatMap(out, in, br, hashes, indices);
    }

    /**
     * The number of entries.
     *
     * @return the number of entries
     */
    public int size() {
        return outputOffsets.length;
    }

    /**
     * The output offset of an entry, from the fragment's output address.
     *
     * @param i the entry's index, in output offset order
     * @return the output offset, 0 to 2^32 - 1
     */
    public long outputOffset(int i) {
        return outputOffsets[i] & 0xffffffffL;
    }

    /**
     * The input offset of an entry, in the input function (the parent's, for a cold fragment).
     *
     * @param i the entry's index, in output offset order
     * @return the input offset, 0 to 2^31 - 1
     */
    public long inputOffset(int i) {
        return inputOffsets[i] & 0xffffffffL;
    }

    /**
     * Whether an entry marks a branch or call source (BOLT's BRANCHENTRY bit) rather than the start
     * of an input block.
     *
     * @param i the entry's index, in output offset order
     * @return true for a branch entry
     */
    public boolean isBranch(int i) {
        return branches[i];
    }

    /**
     * The input block's hash for a block entry (0 for a branch entry or an unknown block).
     *
     * @param i the entry's index, in output offset order
     * @return the stored 64-bit block hash
     */
    public long blockHash(int i) {
        return blockHashes[i];
    }

    /**
     * The input block's index for a block entry (0 for a branch entry or an unknown block).
     *
     * @param i the entry's index, in output offset order
     * @return the stored block index
     */
    public long blockIndex(int i) {
        return blockIndices[i];
    }

    /**
     * One entry as a value (allocates; the accessors above do not).
     *
     * @param i the entry's index, in output offset order
     * @return the entry
     */
    public Entry entry(int i) {
        return new Entry(outputOffset(i), inputOffset(i), branches[i], blockHashes[i], blockIndices[i]);
    }

    /**
     * All entries as values, in output offset order.
     *
     * @return a new list of the entries
     */
    public java.util.List<Entry> entries() {
        java.util.List<Entry> list = new java.util.ArrayList<>(size());
        for (int i = 0; i < size(); i++) {
            list.add(entry(i));
        }
        return list;
    }

    /** Index of the first entry whose output offset is greater than {@code offset} (C++ upper_bound). */
    int upperBound(long offset) {
        int lo = 0;
        int hi = outputOffsets.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if ((outputOffsets[mid] & 0xffffffffL) <= offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * BOLT's translate: the input offset for an output offset in this fragment. A branch source maps to
     * the input offset of the entry at or before it (the start of its input block, or the branch
     * itself); any other offset keeps its distance from that entry. Offsets before the first entry
     * are returned unchanged.
     *
     * @param offset the output offset, from the fragment's output address
     * @param isBranchSource whether the offset is the source of a branch (an LBR "from" address)
     * @return the input offset
     */
    public long translate(long offset, boolean isBranchSource) {
        int i = upperBound(offset);
        if (i == 0) {
            return offset;
        }
        i--;
        long value = inputOffset(i);
        if (isBranchSource) {
            return value;
        }
        return offset - outputOffset(i) + value;
    }

    /**
     * BOLT's getFallthroughsInTrace on this fragment, for output offsets {@code from} and {@code to}:
     * the block-to-block fall-through edges crossed by executing from {@code from} to {@code to}, as
     * input offsets (start of the source block, start of the next block). Appends pairs to {@code out}
     * (from, to, from, to, ...) and returns the number of pairs.
     *
     * @param from the output offset where the trace starts (the target of the previous branch)
     * @param to the output offset where the trace ends (the source of the next branch)
     * @param out receives the pairs of input offsets
     * @return the number of pairs appended; 0 for a trivial or impossible trace
     */
    public int fallthroughs(long from, long to, LongList out) {
        if (from >= to) {
            return 0;
        }
        int fromIter = upperBound(from);
        if (fromIter == 0) {
            return 0;
        }
        do {
            if (fromIter == 0) {
                return 0;
            }
            fromIter--;
        } while (branches[fromIter]);
        int toIter = upperBound(to);
        if (toIter == 0) {
            return 0;
        }
        toIter--;
        if (outputOffset(fromIter) >= outputOffset(toIter)) {
            return 0;
        }
        int count = 0;
        for (int it = fromIter; it != toIter; ) {
            long src = inputOffset(it);
            if (branches[it]) {
                it++;
                continue;
            }
            it++;
            while (branches[it] && it != toIter) {
                it++;
            }
            if (branches[it]) {
                break;
            }
            out.add(src);
            out.add(inputOffset(it));
            count++;
        }
        return count;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatMap m && Arrays.equals(outputOffsets, m.outputOffsets)
                && Arrays.equals(inputOffsets, m.inputOffsets) && Arrays.equals(branches, m.branches)
                && Arrays.equals(blockHashes, m.blockHashes) && Arrays.equals(blockIndices, m.blockIndices);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(outputOffsets) * 31 + Arrays.hashCode(inputOffsets);
    }
}
