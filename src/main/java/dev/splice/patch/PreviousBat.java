package dev.splice.patch;

import dev.splice.bat.BatColdFragment;
import dev.splice.bat.BatFunction;
import dev.splice.bat.BatMap;
import dev.splice.bat.BatTables;
import dev.splice.bat.BatWriter;
import java.util.HashMap;
import java.util.Map;

/**
 * The BAT of an input that Splice rewrote before, as the second pass composes it into the new one
 * (docs/bat.md, "Composition"): a function the second pass moves again maps through both tables to
 * the first input (its first copy's entry disappears); a function only the first pass moved keeps
 * its entry, whose addresses the second pass does not change.
 */
final class PreviousBat {
    private final BatTables tables;
    private final Map<Long, BatFunction> hot = new HashMap<>();

    PreviousBat(BatTables tables) {
        this.tables = tables;
        for (BatFunction f : tables.functions()) {
            hot.putIfAbsent(f.address(), f);
        }
    }

    /** The hot function whose copy starts at {@code address} of the first output, or null. */
    BatFunction hot(long address) {
        return hot.get(address);
    }

    /** The input block starts of that function, ascending. */
    long[] blockStarts(long address) {
        return tables.blocks(address).byOffset().keySet().stream().mapToLong(Long::longValue).toArray();
    }

    /** Copies the cold fragments (old entries) of the function at {@code address} to {@code to}. */
    void copyColdFragments(long address, BatWriter.Function to) {
        for (BatColdFragment c : tables.coldFragments()) {
            if (c.parentAddress() == address) {
                copy(c.map(), to.coldFragment(c.address()));
            }
        }
    }

    /** Copies every function that {@code moved} does not move again, with its cold fragments. */
    void copyUnmoved(BatWriter writer, MovedCode moved) {
        for (BatFunction f : tables.functions()) {
            if (moved.find(f.address()) != null) {
                continue;
            }
            BatWriter.Function copy = writer.function(f.address(), f.hash(), f.blockCount());
            for (BatTables.Block b : tables.blocks(f.address()).byOffset().values()) {
                copy.block(b.inputOffset(), b.index(), b.hash());
            }
            BatMap map = f.map();
            for (int i = 0; i < map.size(); i++) {
                copy.entry(map.outputOffset(i), map.inputOffset(i), map.isBranch(i));
            }
            f.secondaryEntryPoints().forEach(copy::secondaryEntryPoint);
            copyColdFragments(f.address(), copy);
        }
    }

    private static void copy(BatMap map, BatWriter.Fragment to) {
        for (int i = 0; i < map.size(); i++) {
            to.entry(map.outputOffset(i), map.inputOffset(i), map.isBranch(i));
        }
    }
}
