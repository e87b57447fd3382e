package dev.splice.bat;

import java.util.List;

/**
 * One hot function of the table: its output address, the hash of the input function, the number of
 * basic blocks of the input function, its map, and the input offsets of its secondary entry points
 * (in table order).
 *
 * @param address the function's output address (its main fragment)
 * @param hash the input function's 64-bit hash (BOLT's FuncHash), which a profile reader uses to
 *     match the function against the input binary
 * @param blockCount the input function's basic block count (BOLT's NumBasicBlocks)
 * @param map the main fragment's translation map
 * @param secondaryEntryPoints the input offsets of the function's secondary entry points, in table
 *     order (an entry point's id is 1 + its position)
 */
public record BatFunction(long address, long hash, long blockCount, BatMap map, List<Long> secondaryEntryPoints) {
    /**
     * Copies the entry points, so that the record stays immutable.
     *
     * @param address the function's output address
     * @param hash the input function's hash
     * @param blockCount the input function's basic block count
     * @param map the main fragment's translation map
     * @param secondaryEntryPoints the secondary entry points' input offsets, in table order
     */
    public BatFunction {
        secondaryEntryPoints = List.copyOf(secondaryEntryPoints);
    }
}
