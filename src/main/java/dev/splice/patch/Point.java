package dev.splice.patch;

import dev.splice.patch.PatchException.Reason;

/**
 * One instruction boundary a {@link PointSpec} selected, in the input's coordinates.
 *
 * @param kind what selected it
 * @param address the address of the instruction a fragment would go before
 * @param function the name of the function holding it, or null when no function holds it
 * @param offset bytes from the function's start (0 without a function)
 * @param spec the spec that selected it, as written
 * @param refusal why Splice would refuse an insertion here, or null when it accepts one as far as
 *     the selection can tell (later stages may still refuse: a fragment that does not assemble, a
 *     branch that no longer reaches)
 */
public record Point(PointKind kind, long address, String function, long offset, String spec, Refusal refusal) {
    /**
     * Why an insertion at a point would be refused.
     *
     * @param reason the rule (as a {@link PatchException} names it)
     * @param message what, where and why
     */
    public record Refusal(Reason reason, String message) {}

    /**
     * Whether an insertion here passes the selection's checks.
     *
     * @return true when {@link #refusal()} is null
     */
    public boolean accepted() {
        return refusal == null;
    }

    /**
     * The place as listings print it.
     *
     * @return {@code function+0xOFFSET} ({@code function} at offset 0), or the hex address without a function
     */
    public String location() {
        if (function == null) {
            return "0x" + Long.toHexString(address);
        }
        return offset == 0 ? function : function + "+0x" + Long.toHexString(offset);
    }
}
