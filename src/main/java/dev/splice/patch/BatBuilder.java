package dev.splice.patch;

import dev.splice.bat.BatWriter;
import dev.splice.elf.ElfFile;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import java.util.TreeSet;

/**
 * The .note.bolt_bat of a rewritten binary: for each moved function, an entry for every
 * instruction of the new copy, mapping it to the original instruction (inserted instructions map
 * to the instruction they precede; the added jump back after the function maps to its last
 * instruction). BOLT reads every entry without the branch bit as a block start (that is how
 * perf2bolt finds fall-throughs), so only the first entry of each original block goes without
 * it; every other entry carries the bit: it still translates samples exactly but makes no block.
 */
final class BatBuilder {
    private final Inserter inserter;

    BatBuilder(ElfFile elf, Inserter inserter) {
        this.inserter = inserter;
    }

    byte[] encode() {
        BatWriter writer = new BatWriter();
        for (MovedFunction m : inserter.movedFunctions()) {
            long start = m.function.address();
            TreeSet<Long> blocks = new TreeSet<>();
            blocks.add(0L);
            for (Item i : m.items) {
                if ((i.kind == Kind.BRANCH || i.kind == Kind.JUMP) && m.contains(i.target)) {
                    blocks.add(i.target - start);
                }
                if (i.kind == Kind.BRANCH || i.kind == Kind.JUMP) {
                    long next = i.oldAddress + i.oldSize;
                    if (m.contains(next)) {
                        blocks.add(next - start);
                    }
                }
            }
            BatWriter.Function f = writer.function(m.newStart, 0, blocks.size());
            int index = 0;
            for (long b : blocks) {
                f.block(b, index++, 0);
            }
            Entries entries = new Entries(f, blocks);
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
    private record Entries(BatWriter.Function function, TreeSet<Long> blockStarts, java.util.Set<Long> started) {
        Entries(BatWriter.Function function, TreeSet<Long> blockStarts) {
            this(function, blockStarts, new java.util.HashSet<>());
        }

        void add(long outputOffset, long inputOffset) {
            boolean blockStart = blockStarts.contains(inputOffset) && started.add(inputOffset);
            function.entry(outputOffset, inputOffset, !blockStart);
        }
    }
}
