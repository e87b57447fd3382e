package dev.splice.patch;

import dev.splice.elf.Relocation;
import dev.splice.elf.reloc.RiscVRelocations;
import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.List;
import java.util.Map;

/**
 * What the {@link ReferenceHandler}s share while references to moved code are retargeted: the
 * input, the moved code, the old entries' jumps, the subtractions of label differences by offset,
 * the patches made so far (in relocation order), and the value each retargeted relocation has now
 * (for the output's relocation sections, {@link OutputRelocations}).
 */
record References(Input in, MovedCode moved, Trampolines trampolines, Map<Long, List<Reloc>> subtractions,
                  List<Patch> patches, Map<Relocation, Long> newValues) {

    /** Writes {@code bytes} at {@code address} of the input image. */
    void patch(long address, byte[] bytes) {
        patches.add(new Patch(address, bytes));
    }

    /** The refusal of the reference {@code r}: its relocation, place and symbol, and why. */
    PatchException refuse(Reloc r, Reason reason, String why) {
        return new PatchException(reason, describe(r, why));
    }

    /** The message of a refusal of {@code r}. */
    String describe(Reloc r, String why) {
        return in.file() + ": " + RiscVRelocations.name(r.type()) + " at 0x" + Long.toHexString(r.offset()) + " in " + r.target().name()
                + " (symbol '" + r.symbolName() + "'" + (r.relocation().addend() != 0 ? " + " + r.relocation().addend() : "")
                + ") " + why;
    }

    /** Refuses a data word that does not hold what its relocation says. */
    void requireWord(Reloc r, long actual, long expected, int size) {
        if (actual != expected) {
            throw refuse(r, Reason.RELOCATION_MISMATCH, "holds 0x" + Long.toHexString(actual) + " where the relocation says 0x"
                    + Long.toHexString(expected) + " (" + size + " bytes); the data was changed after linking");
        }
    }

    /** The 4-byte instruction {@code bits} (read at a relocation), decoded; null when they are no such instruction. */
    Opcode decode(int bits) {
        return Decoder.length(bits & 0xffff) == 4 ? in.decoder().decode(bits, 4) : null;
    }

    /** The 32 bits at {@code address} of the input image. */
    int instructionBits(long address) {
        return (int) in.image().u32(in.image().fileOffset(address));
    }

    /** The 32-bit word at {@code address}, which {@code r} applies to. */
    long u32At(long address, Reloc r) {
        return in.image().u32(fileOffsetOf(address, r));
    }

    /** The 64-bit word at {@code address}, which {@code r} applies to. */
    long u64At(long address, Reloc r) {
        long o = fileOffsetOf(address, r);
        return in.image().u32(o) | in.image().u32(o + 4) << 32;
    }

    private long fileOffsetOf(long address, Reloc r) {
        if (r.target().isNobits()) {
            throw refuse(r, Reason.MALFORMED_INPUT, "applies to a section without file contents");
        }
        return in.image().fileOffset(address);
    }
}
