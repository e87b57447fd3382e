package dev.splice.bat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds address translation tables for a rewritten binary, the way BOLT's writer does: per
 * function, the input blocks (offset, index, hash), a map from output offset to (input offset,
 * branch) for the main fragment and for each cold fragment, and the secondary entry points. The
 * encoded bytes are identical to BOLT's for the same maps: functions and fragments are sorted by
 * output address, entries stably by output offset, block entries carry their block's hash and index
 * (0 and 0 for an offset that is not an input block), cold fragments without entries are left out.
 *
 * <pre>{@code
 * BatWriter w = new BatWriter();
 * BatWriter.Function f = w.function(0x400580, inputHash, 3);
 * f.block(0x0, 0, h0).block(0xa, 1, h1).block(0x22, 2, h2);
 * f.entry(0x0, 0x0, false).entry(0x1e, 0x1e, true).entry(0x28, 0xa, false);
 * f.coldFragment(0x800000).entry(0x0, 0x22, false);
 * byte[] note = w.encodeNote();
 * }</pre>
 */
public final class BatWriter {
    private final TreeMap<Long, Function> functions = new TreeMap<>();

    /**
     * Starts the function whose main fragment is at {@code outputAddress}.
     *
     * @param outputAddress the function's output address
     * @param inputHash the input function's hash (BOLT's FuncHash)
     * @param blockCount the input function's basic block count
     * @return the function, to add blocks, entries, cold fragments and entry points to
     * @throws IllegalArgumentException if a function at that address was started already
     */
    public Function function(long outputAddress, long inputHash, long blockCount) {
        if (functions.containsKey(outputAddress)) {
            throw new IllegalArgumentException("duplicate function at 0x" + Long.toHexString(outputAddress));
        }
        Function f = new Function(outputAddress, inputHash, blockCount);
        functions.put(outputAddress, f);
        return f;
    }

    /** One function: its input blocks, its main fragment's map, cold fragments, secondary entry points. */
    public static final class Function {
        private final long address;
        private final long hash;
        private final long blockCount;
        private final Map<Long, long[]> blocks = new HashMap<>();
        private final Fragment main;
        private final List<Fragment> cold = new ArrayList<>();
        private final List<Long> secondaryEntryPoints = new ArrayList<>();

        private Function(long address, long hash, long blockCount) {
            this.address = address;
            this.hash = hash;
            this.blockCount = blockCount;
            this.main = new Fragment(address);
        }

        /**
         * Records an input basic block (the first record for an offset wins, as in BOLT); block
         * entries at its input offset, in any fragment of the function, carry its index and hash.
         *
         * @param inputOffset the block's input offset
         * @param index the block's index in the input function
         * @param blockHash the block's 64-bit hash
         * @return this function
         */
        public Function block(long inputOffset, long index, long blockHash) {
            blocks.putIfAbsent(inputOffset, new long[] {index, blockHash});
            return this;
        }

        /**
         * Adds an entry to the main fragment.
         *
         * @param outputOffset the output offset, from the function's output address (32 bits)
         * @param inputOffset the input offset (31 bits)
         * @param branch true for a branch or call source, false for the start of an input block
         * @return this function
         * @throws IllegalArgumentException if an offset does not fit
         */
        public Function entry(long outputOffset, long inputOffset, boolean branch) {
            main.entry(outputOffset, inputOffset, branch);
            return this;
        }

        /**
         * Adds a secondary entry point (input offset), in table order: its id is 1 + the number
         * added before it.
         *
         * @param inputOffset the entry point's input offset (32 bits)
         * @return this function
         * @throws IllegalArgumentException if the offset does not fit
         */
        public Function secondaryEntryPoint(long inputOffset) {
            BatMap.checkOffset(inputOffset, "secondary entry point");
            secondaryEntryPoints.add(inputOffset);
            return this;
        }

        /**
         * Starts a cold fragment of this function at {@code outputAddress} (left out of the tables
         * if it gets no entries, as BOLT does).
         *
         * @param outputAddress the fragment's output address
         * @return the fragment, to add entries to
         */
        public Fragment coldFragment(long outputAddress) {
            Fragment f = new Fragment(outputAddress);
            cold.add(f);
            return f;
        }

        private BatMap map(Fragment fragment) {
            // BatMap.of without an object per entry: the entries were checked when added, and a stable
            // sort by output offset is only needed when they were not added in order (writers usually do).
            int n = fragment.size;
            Integer[] order = null;
            for (int i = 1; i < n; i++) {
                if (Integer.compareUnsigned(fragment.outputs[i], fragment.outputs[i - 1]) < 0) {
                    order = new Integer[n];
                    for (int k = 0; k < n; k++) {
                        order[k] = k;
                    }
                    int[] outputs = fragment.outputs;
                    java.util.Arrays.sort(order, (a, b) -> Integer.compareUnsigned(outputs[a], outputs[b])); // stable
                    break;
                }
            }
            int[] out = new int[n];
            int[] in = new int[n];
            boolean[] br = new boolean[n];
            long[] hashes = new long[n];
            long[] indices = new long[n];
            for (int i = 0; i < n; i++) {
                int e = order == null ? i : order[i];
                boolean branch = fragment.branches[e];
                long[] block = branch ? null : blocks.get((long) fragment.inputs[e]);
                out[i] = fragment.outputs[e];
                in[i] = fragment.inputs[e];
                br[i] = branch;
                hashes[i] = block == null ? 0 : block[1];
                indices[i] = block == null ? 0 : block[0];
            }
            return new BatMap(out, in, br, hashes, indices);
        }
    }

    /** One fragment's entries (output offsets relative to the fragment's output address). */
    public static final class Fragment {
        private final long address;
        /** The entries, in the order added (no object per entry: big maps have one per instruction). */
        private int[] outputs = new int[16];
        private int[] inputs = new int[16];
        private boolean[] branches = new boolean[16];
        private int size;

        private Fragment(long address) {
            this.address = address;
        }

        /**
         * Adds an entry to this fragment.
         *
         * @param outputOffset the output offset, from the fragment's output address (32 bits)
         * @param inputOffset the input offset in the parent's input function (31 bits)
         * @param branch true for a branch or call source, false for the start of an input block
         * @return this fragment
         * @throws IllegalArgumentException if an offset does not fit
         */
        public Fragment entry(long outputOffset, long inputOffset, boolean branch) {
            BatMap.checkOffset(outputOffset, "output offset");
            if (inputOffset < 0 || inputOffset > 0x7fffffffL) {
                throw new IllegalArgumentException("input offset " + inputOffset + " does not fit in 31 bits");
            }
            if (size == outputs.length) {
                outputs = java.util.Arrays.copyOf(outputs, size * 2);
                inputs = java.util.Arrays.copyOf(inputs, size * 2);
                branches = java.util.Arrays.copyOf(branches, size * 2);
            }
            outputs[size] = (int) outputOffset; // checked: 32 bits, read back unsigned
            inputs[size] = (int) inputOffset; // checked: 31 bits
            branches[size] = branch;
            size++;
            return this;
        }
    }

    /**
     * The tables as BOLT would write them for these maps (BOLT's write).
     *
     * @return the tables
     * @throws IllegalArgumentException if two fragments share an output address
     */
    public BatTables build() {
        List<BatFunction> hot = new ArrayList<>();
        Map<Long, Integer> hotIndex = new HashMap<>();
        TreeMap<Long, BatColdFragment> cold = new TreeMap<>();
        for (Function f : functions.values()) {
            hotIndex.put(f.address, hot.size());
            hot.add(new BatFunction(f.address, f.hash, f.blockCount, f.map(f.main), f.secondaryEntryPoints));
        }
        for (Function f : functions.values()) {
            for (Fragment c : f.cold) {
                if (c.size == 0) {
                    continue;
                }
                if (functions.containsKey(c.address) || cold.containsKey(c.address)) {
                    throw new IllegalArgumentException("duplicate fragment at 0x" + Long.toHexString(c.address));
                }
                cold.put(c.address, new BatColdFragment(c.address, hotIndex.get(f.address), f.address, f.map(c)));
            }
        }
        return new BatTables(hot, new ArrayList<>(cold.values()));
    }

    /**
     * The note descriptor bytes.
     *
     * @return the descriptor, as BOLT 22 encodes it
     */
    public byte[] encodeDescriptor() {
        return build().encodeDescriptor();
    }

    /**
     * The whole {@code .note.bolt_bat} section contents.
     *
     * @return the note, as BOLT 22 encodes it
     */
    public byte[] encodeNote() {
        return build().encodeNote();
    }
}
