package dev.splice.bat;

/**
 * A cold (split) fragment: its output address, the index of its parent in the hot function table,
 * the parent's output address, and its map (input offsets are relative to the parent's input
 * function).
 */
public record BatColdFragment(long address, int parentIndex, long parentAddress, BatMap map) {}
