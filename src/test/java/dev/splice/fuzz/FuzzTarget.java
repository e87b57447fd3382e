package dev.splice.fuzz;

import java.util.List;

/**
 * One thing the fuzzer feeds: its seeds, how an input is derived from a seed, and what is done
 * with the input (parse it and use everything parsed). An input may throw only the project's own
 * refusals ({@link Fuzzer#acceptable}).
 *
 * @param name the target's name, as {@code bench/fuzz.sh} prints it
 * @param seeds valid inputs to start from
 * @param mutator derives an input from a seed
 * @param body what one input goes through
 * @param allocationPerByte bytes the body may allocate per input byte (on top of a fixed allowance)
 */
record FuzzTarget(String name, List<byte[]> seeds, Mutator mutator, Body body, long allocationPerByte) {
    /** What one input goes through. */
    @FunctionalInterface
    interface Body {
        void run(byte[] input) throws Exception;
    }
}
