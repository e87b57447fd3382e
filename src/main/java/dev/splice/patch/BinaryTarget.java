package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.reloc.RiscVAttributes;
import dev.splice.isa.Extension;
import dev.splice.patch.PatchException.Reason;
import java.util.EnumSet;
import java.util.Locale;
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
        String a = arch.toLowerCase(Locale.ROOT);
        Set<Extension> out = EnumSet.of(Extension.I);
        if (!a.startsWith("rv64")) {
            return out;
        }
        for (String part : a.substring(4).split("_")) {
            if (part.isEmpty()) {
                continue;
            }
            String name = withoutVersion(part);
            if (name.length() > 1 && (name.startsWith("z") || name.startsWith("s") || name.startsWith("x"))) {
                for (Extension e : Extension.values()) {
                    if (e.isaName().equals(name)) {
                        out.add(e);
                    }
                }
                continue;
            }
            // Single letters with versions: "i2p1", or run-together "imafdc" in old strings.
            for (int i = 0; i < part.length(); i++) {
                char c = part.charAt(i);
                if (Character.isDigit(c)) {
                    while (i + 1 < part.length() && (Character.isDigit(part.charAt(i + 1)) || part.charAt(i + 1) == 'p')) {
                        i++;
                    }
                    continue;
                }
                for (Extension e : Extension.values()) {
                    if (e.isaName().length() == 1 && e.isaName().charAt(0) == c) {
                        out.add(e);
                    }
                }
                if (c == 'g') {
                    out.addAll(Extension.parseTarget("rv64g"));
                }
            }
        }
        if (out.contains(Extension.F) || out.contains(Extension.D)) {
            out.add(Extension.ZICSR);
        }
        return out;
    }

    /** {@code part} without a trailing version ("2p1", "2"): what {@code replaceFirst("\\d+(p\\d+)?$", "")} gives, without regex. */
    static String withoutVersion(String part) {
        int end = part.length();
        while (end > 0 && isDigit(part.charAt(end - 1))) {
            end--;
        }
        if (end == part.length()) {
            return part;
        }
        if (end >= 2 && part.charAt(end - 1) == 'p' && isDigit(part.charAt(end - 2))) {
            end -= 1;
            while (end > 0 && isDigit(part.charAt(end - 1))) {
                end--;
            }
        }
        return part.substring(0, end);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
