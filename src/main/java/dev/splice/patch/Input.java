package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.Function;
import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.patch.PatchException.Reason;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What insertion needs from the input binary that does not depend on the insertions: its target,
 * a decoder for it, its loaded image, its relocations (static and dynamic) and its function starts. Made once and only
 * read afterwards: the attempts of a bulk rewrite and its decoding threads share it.
 *
 * @param file the input's name, for messages
 */
record Input(ElfFile elf, String file, BinaryTarget target, Decoder decoder, InputImage image,
             RelocationIndex relocations, DynamicRelocations dynamicRelocations, Set<Long> functionStarts) {

    /**
     * Reads what insertion needs from {@code elf}; refuses a binary without relocations for its
     * code. The decoder is made on the other core while the relocations are read.
     */
    static Input read(ElfFile elf) {
        BinaryTarget target = BinaryTarget.of(elf);
        Background<Decoder> decoder = Background.start("isa", () -> Rv.ISA.decoder(decodable(target)));
        return read(elf, target, decoder::join);
    }

    /**
     * {@link #read(ElfFile)} with the decoder made elsewhere: {@code decoder} is asked for it after
     * the relocations are read (bulk mode makes it on the other core meanwhile).
     */
    static Input read(ElfFile elf, Supplier<Decoder> decoder) {
        return read(elf, BinaryTarget.of(elf), decoder);
    }

    private static Input read(ElfFile elf, BinaryTarget target, Supplier<Decoder> decoder) {
        Set<Long> starts = new HashSet<>();
        for (Function f : elf.functions()) {
            starts.add(f.address());
        }
        // A PLT stub is a function entry for the calls and tail calls that reach it.
        PltStubs plt = PltStubs.read(elf);
        starts.addAll(plt.addresses());
        InputImage image = new InputImage(elf);
        RelocationIndex relocations = RelocationIndex.read(elf, elf.name(), plt);
        DynamicRelocations dynamic = DynamicRelocations.read(elf);
        return new Input(elf, elf.name(), target, decoder.get(), image, relocations, dynamic, starts);
    }

    /** The extensions to decode a binary's code with: everything, except C when the binary does not enable it. */
    static Set<Extension> decodable(BinaryTarget target) {
        return target.extensions().contains(Extension.C) ? Extension.all() : EnumSet.complementOf(EnumSet.of(Extension.C));
    }

    /**
     * Refuses a binary that insertion does not handle: not RISC-V64, rewritten by BOLT or by a Splice
     * whose output relocations still describe its input (no {@link OutputRelocations#SECTION}), neither an
     * executable (static or dynamically linked, ET_EXEC or PIE) nor a shared library (ET_DYN).
     */
    static void requireInsertable(ElfFile elf) {
        String file = elf.name();
        if (!elf.isRiscV() || elf.header().elfClass() != ElfHeader.ELFCLASS64) {
            throw new PatchException(Reason.UNSUPPORTED_BINARY, file + ": insertion needs a RISC-V64 ELF file");
        }
        if (elf.section(NewSection.NAME).isPresent() && elf.section(OutputRelocations.SECTION).isEmpty()) {
            throw new PatchException(Reason.ALREADY_REWRITTEN, file + ": already rewritten by an older Splice (has "
                    + NewSection.NAME + " but no " + OutputRelocations.SECTION + "); its relocations describe its input, so "
                    + "insert into the original binary in one run");
        }
        elf.sections().stream().filter(s -> s.name().startsWith(".bolt.org")).findFirst().ifPresent(s -> {
            throw new PatchException(Reason.ALREADY_REWRITTEN, file + ": rewritten by BOLT (has " + s.name() + "); its "
                    + "relocations describe its input, so patch the binary BOLT read");
        });
        int type = elf.header().type();
        if (type != ElfHeader.ET_EXEC && type != ElfHeader.ET_DYN) {
            throw new PatchException(Reason.UNSUPPORTED_BINARY, file + ": insertion needs an executable or a shared library "
                    + "(ET_EXEC or ET_DYN), this is e_type " + type + " (" + elf.header().typeName() + ")");
        }
    }
}
