package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.reloc.RiscVAttributes;
import dev.splice.isa.Extension;
import dev.splice.patch.PatchException.Reason;
import java.util.EnumSet;
import java.util.Set;

/**
 * The extensions a binary may execute, from the Tag_RISCV_arch string of its .riscv.attributes
 * section ("rv64i2p1_m2p0_..._c2p0_zicsr2p0"); a binary without one is taken as rv64gc.
 * Extensions Splice does not know (zmmul, ...) are ignored: no listing can name them.
 */
record BinaryTarget(Set<Extension> extensions, String source) {
    static BinaryTarget of(ElfFile elf) {
        return RiscVAttributes.arch(elf)
                .map(arch -> new BinaryTarget(parseArch(arch), "Tag_RISCV_arch \"" + arch + "\""))
                .orElseGet(() -> new BinaryTarget(Extension.parseTarget("rv64gc"), "rv64gc (no Tag_RISCV_arch)"));
    }

    /** Throws unless every extension of the listing's target is enabled in the binary. */
    void require(String listingTarget, String listingName) {
        Set<Extension> wanted = Extension.parseTarget(listingTarget);
        Set<Extension> missing = EnumSet.noneOf(Extension.class);
        missing.addAll(wanted);
        missing.removeAll(extensions);
        if (!missing.isEmpty()) {
            throw new PatchException(Reason.TARGET_MISMATCH, listingName + ": .target " + listingTarget + " does not match the binary: it needs "
                    + Extension.targetName(EnumSet.of(Extension.I, missing.toArray(new Extension[0]))).substring(5)
                    + " which the binary's " + source + " does not enable");
        }
    }

    static Set<Extension> parseArch(String arch) {
        return Extension.parseArch(arch);
    }
}
