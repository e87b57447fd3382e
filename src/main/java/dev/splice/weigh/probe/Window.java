package dev.splice.weigh.probe;

/**
 * One marked window of a probe executable, in execution order (the plugin numbers its windows the
 * same way, and the guest stores its clock readings in this order).
 *
 * @param index position in execution order
 * @param context the context whose kernel runs
 * @param probe true for the pair's probe window, false for its baseline window
 * @param warmup true for the warm-up window that precedes every measured window
 * @param calls kernel calls in the window
 * @param pair the index of the pair the window belongs to
 */
public record Window(int index, String context, boolean probe, boolean warmup, int calls, int pair) {}
