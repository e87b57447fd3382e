package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL_PLT;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GOT_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_COPY;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_IRELATIVE;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JUMP_SLOT;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_NONE;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RELATIVE;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_JUMP;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_DTPMOD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_DTPMOD64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_DTPREL32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_DTPREL64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_TPREL32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_TPREL64;

import dev.splice.patch.RelocationIndex.Reloc;

/**
 * Retargets one kind of reference to moved code from the code and data that stay, found through
 * its relocation: the instruction or word there is checked against what the relocation says, then
 * re-encoded for the new address. {@link #of} gives the one handler of each relocation type;
 * supporting another type in insertion means adding its handler here.
 */
sealed interface ReferenceHandler permits DataWordReference, LabelDifferenceReference, BranchReference,
        PcRelativePairReference, AbsoluteAddressReference, GotReference, DynamicRelocationReference {

    /** Retargets {@code r}, which refers to moved function {@code m}; {@code to} is the new address it names. */
    void retarget(Reloc r, MovedFunction m, long to, References refs);

    /** The handler of relocation type {@code type}, or null when references of that type are not handled. */
    static ReferenceHandler of(int type) {
        return switch (type) {
            case R_RISCV_64 -> DataWordReference.WORD64;
            case R_RISCV_32 -> DataWordReference.WORD32;
            case R_RISCV_ADD32, R_RISCV_ADD64 -> LabelDifferenceReference.INSTANCE;
            case R_RISCV_JAL, R_RISCV_BRANCH, R_RISCV_RVC_BRANCH, R_RISCV_RVC_JUMP -> BranchReference.INSTANCE;
            case R_RISCV_CALL, R_RISCV_CALL_PLT, R_RISCV_PCREL_HI20 -> PcRelativePairReference.INSTANCE;
            case R_RISCV_HI20, R_RISCV_LO12_I, R_RISCV_LO12_S -> AbsoluteAddressReference.INSTANCE;
            case R_RISCV_GOT_HI20 -> GotReference.INSTANCE;
            default -> null;
        };
    }

    /**
     * The handler of dynamic relocation type {@code type} (of {@code .rela.dyn}/{@code .rela.plt}),
     * or null when it is not handled.
     */
    static ReferenceHandler ofDynamic(int type) {
        return switch (type) {
            case R_RISCV_RELATIVE, R_RISCV_IRELATIVE, R_RISCV_64, R_RISCV_JUMP_SLOT -> DynamicRelocationReference.INSTANCE;
            default -> null;
        };
    }

    /**
     * True for dynamic relocation types whose value is no code address (TLS module ids and
     * offsets, copies of data): they never refer to moved code, whatever their number.
     */
    static boolean namesNoCode(int type) {
        return switch (type) {
            case R_RISCV_NONE, R_RISCV_COPY, R_RISCV_TLS_DTPMOD32, R_RISCV_TLS_DTPMOD64, R_RISCV_TLS_DTPREL32,
                    R_RISCV_TLS_DTPREL64, R_RISCV_TLS_TPREL32, R_RISCV_TLS_TPREL64 -> true;
            default -> false;
        };
    }
}
