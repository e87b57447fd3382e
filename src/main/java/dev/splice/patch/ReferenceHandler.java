package dev.splice.patch;

import dev.splice.patch.RelocationIndex.Reloc;

/**
 * Retargets one kind of reference to moved code from the code and data that stay, found through
 * its relocation: the instruction or word there is checked against what the relocation says, then
 * re-encoded for the new address. {@link #of} gives the one handler of each relocation type;
 * supporting another type in insertion means adding its handler here.
 */
sealed interface ReferenceHandler permits DataWordReference, LabelDifferenceReference, BranchReference,
        PcRelativePairReference, AbsoluteAddressReference, GotReference {

    /** Retargets {@code r}, which refers to moved function {@code m}; {@code to} is the new address it names. */
    void retarget(Reloc r, MovedFunction m, long to, References refs);

    /** The handler of relocation type {@code type}, or null when references of that type are not handled. */
    static ReferenceHandler of(int type) {
        return switch (type) {
            case Rel.R64 -> DataWordReference.WORD64;
            case Rel.R32 -> DataWordReference.WORD32;
            case Rel.ADD32, Rel.ADD64 -> LabelDifferenceReference.INSTANCE;
            case Rel.JAL, Rel.BRANCH, Rel.RVC_BRANCH, Rel.RVC_JUMP -> BranchReference.INSTANCE;
            case Rel.CALL, Rel.CALL_PLT, Rel.PCREL_HI20 -> PcRelativePairReference.INSTANCE;
            case Rel.HI20, Rel.LO12_I, Rel.LO12_S -> AbsoluteAddressReference.INSTANCE;
            case Rel.GOT_HI20 -> GotReference.INSTANCE;
            default -> null;
        };
    }
}
