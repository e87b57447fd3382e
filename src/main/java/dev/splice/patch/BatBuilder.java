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
 * instruction). Branches and jumps are marked as branch sources; block starts are recorded as input blocks.
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
            long lastInput = 0;
            for (Item i : m.items) {
                long out = i.newAddress - m.newStart;
                switch (i.kind) {
                    case FRAGMENT -> {
                        long input = i.oldAddress - start;
                        for (long o = 0; o < i.size(); o += 2) {
                            f.entry(out + o, input, false);
                        }
                    }
                    case FALLTHROUGH -> f.entry(out, lastInput, true);
                    default -> {
                        if (i.oldAddress == m.function.endAddress()) {
                            f.entry(out, lastInput, false); // the trap after a function that ends its section
                            continue;
                        }
                        long input = i.oldAddress - start;
                        boolean branch = i.kind == Kind.BRANCH || i.kind == Kind.JUMP;
                        f.entry(out, input, branch);
                        if (branch) {
                            for (long o = 4; o < i.size(); o += 4) {
                                f.entry(out + o, input, true);
                            }
                        }
                        lastInput = input;
                    }
                }
            }
        }
        return writer.encodeNote();
    }
}
