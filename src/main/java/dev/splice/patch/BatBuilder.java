package dev.splice.patch;

import dev.splice.bat.BatWriter;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;

/**
 * The .note.bolt_bat of a rewritten binary: for each moved function, an entry for every
 * instruction of the new copy, mapping it to the original instruction (inserted instructions map
 * to the instruction they precede; the added jump back after the function maps to its last
 * instruction). BOLT reads every entry without the branch bit as a block start (that is how
 * perf2bolt finds fall-throughs), so only the first entry of each original block goes without
 * it; every other entry carries the bit: it still translates samples exactly but makes no block.
 */
final class BatBuilder {
    private final MovedCode moved;

    BatBuilder(MovedCode moved) {
        this.moved = moved;
    }

    byte[] encode() {
        BatWriter writer = new BatWriter();
        long[] starts = new long[64];
        for (MovedFunction m : moved.functions()) {
            long start = m.function.address();
            // The input block starts, sorted and unique (offset 0, branch targets inside, the instructions after branches).
            int n = 0;
            starts[n++] = 0;
            for (Item i : m.items) {
                if (i.kind != Kind.BRANCH && i.kind != Kind.JUMP) {
                    continue;
                }
                if (n + 2 > starts.length) {
                    starts = java.util.Arrays.copyOf(starts, starts.length * 2);
                }
                if (m.contains(i.target)) {
                    starts[n++] = i.target - start;
                }
                long next = i.oldAddress + i.oldSize;
                if (m.contains(next)) {
                    starts[n++] = next - start;
                }
            }
            java.util.Arrays.sort(starts, 0, n);
            int unique = 0;
            for (int k = 0; k < n; k++) {
                if (unique == 0 || starts[k] != starts[unique - 1]) {
                    starts[unique++] = starts[k];
                }
            }
            long[] blocks = java.util.Arrays.copyOf(starts, unique);
            BatWriter.Function f = writer.function(m.newStart, 0, blocks.length);
            for (int index = 0; index < blocks.length; index++) {
                f.block(blocks[index], index, 0);
            }
            Entries entries = new Entries(f, blocks, new boolean[blocks.length]);
            long lastInput = 0;
            for (Item i : m.items) {
                long out = i.newAddress - m.newStart;
                switch (i.kind) {
                    case FRAGMENT -> {
                        long input = i.oldAddress - start;
                        for (long o = 0; o < i.size(); o += 2) {
                            entries.add(out + o, input);
                        }
                    }
                    case FALLTHROUGH -> entries.add(out, lastInput);
                    default -> {
                        if (i.oldAddress == m.function.endAddress()) {
                            entries.add(out, lastInput); // the trap after a function that ends its section
                            continue;
                        }
                        long input = i.oldAddress - start;
                        boolean branch = i.kind == Kind.BRANCH || i.kind == Kind.JUMP;
                        entries.add(out, input);
                        if (branch) {
                            for (long o = 4; o < i.size(); o += 4) {
                                entries.add(out + o, input);
                            }
                        }
                        lastInput = input;
                    }
                }
            }
        }
        return writer.encodeNote();
    }

    /** Adds entries, keeping the branch bit off only on the first entry of each original block. */
    private record Entries(BatWriter.Function function, long[] blockStarts, boolean[] started) {
        void add(long outputOffset, long inputOffset) {
            int b = java.util.Arrays.binarySearch(blockStarts, inputOffset);
            boolean blockStart = b >= 0 && !started[b];
            if (blockStart) {
                started[b] = true;
            }
            function.entry(outputOffset, inputOffset, !blockStart);
        }
    }
}
