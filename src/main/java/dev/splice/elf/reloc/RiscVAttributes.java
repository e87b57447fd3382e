package dev.splice.elf.reloc;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteReader;
import dev.splice.elf.ElfFile;
import java.util.Optional;

/**
 * The RISC-V build attributes of a file ({@code .riscv.attributes}, section type
 * SHT_RISCV_ATTRIBUTES): the architecture string of Tag_RISCV_arch
 * ({@code "rv64i2p1_m2p0_..._c2p0_zicsr2p0"}), as the RISC-V psABI ("Attributes") lays it out:
 * format version 'A', then subsections (length, vendor name, sub-subsections of tag, length and
 * attributes); the "riscv" vendor's Tag_File holds the file's attributes, each a ULEB128 tag
 * followed by a NUL-terminated string (odd tags, and Tag_RISCV_arch) or a ULEB128 number.
 */
public final class RiscVAttributes {
    private RiscVAttributes() {}

    /** The sub-subsection tag of attributes that apply to the whole file. */
    public static final int TAG_FILE = 1;
    /** The attribute that holds the architecture string. */
    public static final int TAG_RISCV_ARCH = 5;

    /**
     * The Tag_RISCV_arch string of the file's {@code .riscv.attributes} section.
     *
     * @param elf the file
     * @return the string; empty if the file has no such section or attribute, or the section is
     *     malformed (callers then assume a default architecture, as the tools do without attributes)
     */
    public static Optional<String> arch(ElfFile elf) {
        return elf.section(".riscv.attributes").flatMap(s -> arch(elf.contents(s)));
    }

    /**
     * The Tag_RISCV_arch string of the bytes of a {@code .riscv.attributes} section.
     *
     * @param section the section's contents
     * @return the string; empty without one, or when the bytes are malformed
     */
    public static Optional<String> arch(byte[] section) {
        if (section.length < 1 || section[0] != 'A') {
            return Optional.empty();
        }
        try {
            int at = 1;
            while (section.length - at >= 4) {
                ByteReader r = new ByteReader(section, at, section.length, ".riscv.attributes");
                long length = r.u32() & 0xffffffffL;
                if (length < 4 || length > section.length - at) {
                    return Optional.empty();
                }
                int end = (int) (at + length);
                ByteReader sub = new ByteReader(section, r.position(), end, ".riscv.attributes");
                if (sub.cstring().equals("riscv")) {
                    Optional<String> arch = vendorArch(section, sub, end);
                    if (arch.isPresent()) {
                        return arch;
                    }
                }
                at = end;
            }
        } catch (BadInputException e) {
            // malformed: no architecture string
        }
        return Optional.empty();
    }

    /** Tag_RISCV_arch from the first Tag_File sub-subsection of the "riscv" subsection that has it. */
    private static Optional<String> vendorArch(byte[] section, ByteReader sub, int end) {
        while (sub.remaining() >= 5) {
            int start = sub.position();
            int tag = sub.u8();
            long size = sub.u32() & 0xffffffffL;
            if (size < 5 || size > end - start) {
                return Optional.empty();
            }
            int subEnd = (int) (start + size);
            if (tag == TAG_FILE) {
                ByteReader attributes = new ByteReader(section, sub.position(), subEnd, ".riscv.attributes");
                while (!attributes.atEnd()) {
                    long attribute = attributes.uleb();
                    if (attribute % 2 == 1 || attribute == 0) { // odd tags are strings
                        String value = attributes.cstring();
                        if (attribute == TAG_RISCV_ARCH) {
                            return Optional.of(value);
                        }
                    } else {
                        attributes.uleb();
                    }
                }
            }
            sub.skip(subEnd - sub.position());
        }
        return Optional.empty();
    }
}
