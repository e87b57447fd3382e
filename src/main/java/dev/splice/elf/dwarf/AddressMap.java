package dev.splice.elf.dwarf;

/**
 * Where the code of an address went: the rewrite's knowledge of moved code, as the DWARF rewriter
 * asks for it. Addresses outside moved code map to themselves.
 */
public interface AddressMap {
    /**
     * Where execution that reaches {@code address} starts now: the new address of the instruction
     * there, or of the code inserted before it (an address inside an instruction keeps its offset).
     *
     * @param address an old address
     * @return the new address
     */
    long start(long address);

    /**
     * Where something ending at {@code address} (exclusive) ends now: the end of the new copy of
     * the instruction before it (a return address, the end of a range).
     *
     * @param address an old end address
     * @return the new end address
     */
    long end(long address);

    /**
     * The new ranges of the code of {@code [from, to)}: the parts outside moved code as they are,
     * each moved part at its new place (a whole moved function as its whole new copy); an empty
     * range gives none.
     *
     * @param from the first old address
     * @param to the old end (exclusive)
     * @param out receives each new range, in the order of the old code
     */
    void ranges(long from, long to, RangeSink out);

    /**
     * Whether any moved code lies in {@code [from, to)}.
     *
     * @param from the first old address
     * @param to the old end (exclusive)
     * @return true when part of the range moved
     */
    boolean moves(long from, long to);

    /**
     * The first address after {@code address} where moved code starts or ends.
     *
     * @param address an old address
     * @return that address, or {@link Long#MAX_VALUE} when there is none
     */
    long nextBoundary(long address);

    /** Receives new ranges. */
    @FunctionalInterface
    interface RangeSink {
        /**
         * One new range.
         *
         * @param from its first address
         * @param to its end (exclusive)
         */
        void range(long from, long to);
    }
}
