package dev.splice.bat;

import java.util.List;

/**
 * One hot function of the table: its output address, the hash of the input function, the number of
 * basic blocks of the input function, its map, and the input offsets of its secondary entry points
 * (in table order).
 */
public record BatFunction(long address, long hash, long blockCount, BatMap map, List<Long> secondaryEntryPoints) {
    public BatFunction {
        secondaryEntryPoints = List.copyOf(secondaryEntryPoints);
    }
}
