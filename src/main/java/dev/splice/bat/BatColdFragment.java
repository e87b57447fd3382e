package dev.splice.bat;

/**
 * A cold (split) fragment: its output address, the index of its parent in the hot function table,
 * the parent's output address, and its map (input offsets are relative to the parent's input
 * function). BOLT links it to its parent through ColdPartSource, and {@code fetchParentAddress}
 * answers from it, so that samples in the fragment count for the parent.
 *
 * @param address the fragment's output address (where BOLT placed the split-off cold code)
 * @param parentIndex the index of the parent in the hot function table (BOLT's HotIndex)
 * @param parentAddress the parent hot function's output address
 * @param map the fragment's translation map; its input offsets are in the parent's input function,
 *     the first entry's input offset being the skew the table stores
 */
public record BatColdFragment(long address, int parentIndex, long parentAddress, BatMap map) {}
