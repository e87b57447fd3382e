package dev.splice.patch;

import dev.splice.base.Le;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.isa.Extension;
import dev.splice.patch.PatchException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The extensions a binary may execute, from the Tag_RISCV_arch string of its .riscv.attributes
 * section ("rv64i2p1_m2p0_..._c2p0_zicsr2p0"); a binary without one is taken as rv64gc.
 * Extensions Splice does not know (zmmul, ...) are ignored: no listing can name them.
 */
record BinaryTarget(Set<Extension> extensions, String source) {
    private static final int TAG_FILE = 1;
    private static final int TAG_RISCV_ARCH = 5;

    static BinaryTarget of(ElfFile elf) {
        Optional<Section> attributes = elf.section(".riscv.attributes");
        if (attributes.isPresent()) {
            String arch = archString(elf.contents(attributes.get()));
            if (arch != null) {
                return new BinaryTarget(parseArch(arch), "Tag_RISCV_arch \"" + arch + "\"");
            }
        }
        return new BinaryTarget(Extension.parseTarget("rv64gc"), "rv64gc (no Tag_RISCV_arch)");
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

    /** The arch string from the "riscv" subsection's file attributes, or null. */
    private static String archString(byte[] b) {
        if (b.length < 1 || b[0] != 'A') {
            return null;
        }
        int at = 1;
        while (at + 4 <= b.length) {
            long length = Le.u32L(b, at);
            if (length < 4 || at + length > b.length) {
                return null;
            }
            int end = (int) (at + length);
            int p = at + 4;
            int vendorEnd = p;
            while (vendorEnd < end && b[vendorEnd] != 0) {
                vendorEnd++;
            }
            String vendor = new String(b, p, vendorEnd - p, StandardCharsets.US_ASCII);
            p = vendorEnd + 1;
            if (vendor.equals("riscv")) {
                while (p + 5 <= end) {
                    int tag = b[p] & 0xff;
                    long size = Le.u32L(b, p + 1);
                    if (size < 5 || p + size > end) {
                        return null;
                    }
                    if (tag == TAG_FILE) {
                        String arch = fileAttribute(b, p + 5, (int) (p + size));
                        if (arch != null) {
                            return arch;
                        }
                    }
                    p += (int) size;
                }
            }
            at = end;
        }
        return null;
    }

    private static String fileAttribute(byte[] b, int p, int end) {
        while (p < end) {
            long[] tag = uleb(b, p, end);
            p = (int) tag[1];
            if (tag[0] % 2 == 1 || tag[0] == 0) { // odd tags are strings (RISC-V psABI)
                int s = p;
                while (p < end && b[p] != 0) {
                    p++;
                }
                String value = new String(b, s, p - s, StandardCharsets.US_ASCII);
                p++;
                if (tag[0] == TAG_RISCV_ARCH) {
                    return value;
                }
            } else {
                p = (int) uleb(b, p, end)[1];
            }
        }
        return null;
    }

    private static long[] uleb(byte[] b, int p, int end) {
        long v = 0;
        int shift = 0;
        while (p < end) {
            int x = b[p++] & 0xff;
            if (shift < 63) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
            if ((x & 0x80) == 0) {
                break;
            }
        }
        return new long[] {v, p};
    }

}
