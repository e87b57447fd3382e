package dev.splice.patch;

import dev.splice.base.BadInputException;

/**
 * A write-back Splice refuses: {@link #reason()} says which rule refused it (for programs), the
 * message says what, where and why (and what to do instead, for people). See docs/patch.md,
 * "Refusal rules".
 */
public class PatchException extends BadInputException {
    private static final long serialVersionUID = 1L;

    /** Why a write-back was refused: one constant per refusal rule. */
    public enum Reason {
        /** Not a static RISC-V64 executable: another machine or class, not ET_EXEC, or dynamically linked. */
        UNSUPPORTED_BINARY,
        /** The input is an output of Splice's insertion (its relocations describe its input): insert in one run. */
        ALREADY_REWRITTEN,
        /** The binary kept no relocations for its code: link with {@code -Wl,--emit-relocs}. */
        NO_RELOCATIONS,
        /** The input contradicts itself: a relocation names no symbol, an address has no bytes in the file. */
        MALFORMED_INPUT,
        /** Counters are asked for, but the binary has no {@code _exit} to write them from. */
        NO_EXIT_HOOK,
        /** An insertion address lies in no function. */
        NOT_IN_FUNCTION,
        /** A replaced function's name or address names no function (or is no address). */
        NO_SUCH_FUNCTION,
        /** A replaced function's name names several functions. */
        AMBIGUOUS_FUNCTION,
        /** The function is not code with contents inside an executable section. */
        NOT_CODE,
        /** An insertion address, or a reference to moved code, is not an instruction boundary. */
        NOT_AN_INSTRUCTION_BOUNDARY,
        /** An insertion address lies after an auipc and up to the last instruction completing its pair. */
        INSIDE_PC_RELATIVE_PAIR,
        /** An insertion address lies inside an lr/sc sequence. */
        INSIDE_LR_SC,
        /** Insertions at one address disagree on the {@link BranchTarget} policy. */
        CONFLICTING_POLICIES,
        /** Two functions that would move overlap. */
        OVERLAPPING_FUNCTIONS,
        /** The function has too few bytes for the jump from its old entry to its copy. */
        TOO_SMALL,
        /** A function that would move holds bytes that are no instruction of the binary's target. */
        DATA_IN_CODE,
        /** Bulk insertion: the function falls through into the code after it, and the jump back may not reach. */
        FALLS_THROUGH,
        /** An auipc without a relocation that says how its value is used. */
        UNKNOWN_PC_USE,
        /** A pc-relative instruction that the write-back cannot re-encode. */
        UNSUPPORTED_INSTRUCTION,
        /** A relocation type (or use of one) that the write-back does not handle on or into moved code. */
        UNSUPPORTED_RELOCATION,
        /** The instruction or data word at a relocation does not hold what the relocation says. */
        RELOCATION_MISMATCH,
        /** A branch, jump, pc-relative pair or data word cannot reach or hold the new address. */
        OUT_OF_REACH,
        /** {@code .eh_frame} or {@code .eh_frame_hdr} holds what the write-back cannot migrate, or cannot grow. */
        UNWIND_INFO,
        /** DWARF debug information over moved code that the write-back cannot rewrite exactly (docs/patch.md, "Debug information"). */
        DEBUG_INFO,
        /** A moved function has a C++ exception table without relocations. */
        LSDA_WITHOUT_RELOCATIONS,
        /** A fragment or replacement listing does not assemble, or does not hold one region at the right address. */
        BAD_LISTING,
        /** A fragment or listing needs extensions that the binary does not enable. */
        TARGET_MISMATCH,
        /** A fragment holds bytes that are no instruction of the binary's target. */
        FRAGMENT_NOT_CODE,
        /** A fragment branches out of itself. */
        FRAGMENT_LEAVES_ITSELF,
        /** A fragment uses the pc (auipc): its value would depend on where the fragment lands. */
        FRAGMENT_USES_PC,
        /** A replacement listing does not keep the function's length. */
        LENGTH_CHANGED,
        /** One function is replaced twice. */
        REPLACED_TWICE
    }

    /** The rule that refused the write-back. */
    private final Reason reason;
    /** The input address of the function that caused the refusal, or -1. */
    private final long functionAddress;

    PatchException(Reason reason, String message) {
        this(reason, message, -1);
    }

    /** A refusal caused by one function (its input address), which bulk insertion may leave out and retry. */
    PatchException(Reason reason, String message, long functionAddress) {
        super(message);
        this.reason = reason;
        this.functionAddress = functionAddress;
    }

    /**
     * The rule that refused the write-back.
     *
     * @return the reason code, never null
     */
    public Reason reason() {
        return reason;
    }

    /**
     * The function that caused the refusal.
     *
     * @return its input address, or -1 when the refusal is not about one function
     */
    public long functionAddress() {
        return functionAddress;
    }
}
