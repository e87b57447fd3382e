package dev.splice.bat;

import dev.splice.BadInputException;
import java.util.TreeMap;

/**
 * The code ranges of the FDEs in an {@code .eh_frame} section (start address -> length), as BOLT's
 * CFIReaderWriter keeps them: keyed by start address, the first non-empty FDE for an address winning
 * (BOLT's outputs hold two for a function it patched in place: the 5-byte jump, then the old body). perf2bolt makes functions from FDEs that no symbol covers ({@code
 * __BOLT_FDE_FUNCat...}) and widens a function to its FDE's length, so profile translation needs them.
 */
final class EhFrameRanges {
    private EhFrameRanges() {}

    private static final int DW_EH_PE_OMIT = 0xff;

    /** Parses the section's records; a malformed record is refused with its offset. */
    static TreeMap<Long, Long> parse(byte[] bytes, long sectionAddress, String source) {
        TreeMap<Long, Long> fdes = new TreeMap<>();
        java.util.Map<Integer, Integer> cieEncodings = new java.util.HashMap<>();
        int offset = 0;
        while (offset + 4 <= bytes.length) {
            ByteReader r = new ByteReader(bytes, offset, bytes.length, source);
            long length = r.u32() & 0xffffffffL;
            if (length == 0) {
                break; // terminator
            }
            if (length == 0xffffffffL) {
                throw r.error(offset, "64-bit .eh_frame records are not supported");
            }
            int start = r.position();
            if (length > bytes.length - start) {
                throw r.error(offset, "record length " + length + " runs past the end of the section");
            }
            int end = (int) (start + length);
            ByteReader body = new ByteReader(bytes, start, end, source);
            long id = body.u32() & 0xffffffffL;
            if (id == 0) {
                cieEncodings.put(offset, cieEncoding(body, offset));
            } else {
                int cie = (int) (start - id);
                Integer encoding = cieEncodings.get(cie);
                if (encoding == null) {
                    throw r.error(offset, "FDE refers to no CIE at offset " + cie);
                }
                long pcBegin = pointer(body, encoding, sectionAddress, true);
                long pcRange = pointer(body, encoding & 0x0f, sectionAddress, false);
                if (pcRange != 0) {
                    fdes.putIfAbsent(pcBegin, pcRange);
                }
            }
            offset = end;
        }
        return fdes;
    }

    /** The FDE pointer encoding of a CIE ('R' in its augmentation; absolute pointers otherwise). */
    private static int cieEncoding(ByteReader r, int recordOffset) {
        int version = r.u8();
        StringBuilder augmentation = new StringBuilder();
        for (int c = r.u8(); c != 0; c = r.u8()) {
            augmentation.append((char) c);
        }
        String aug = augmentation.toString();
        if (aug.contains("eh")) {
            r.u64();
        }
        r.uleb(); // code alignment
        r.sleb(); // data alignment
        if (version == 1) {
            r.u8();
        } else {
            r.uleb();
        }
        int encoding = 0;
        if (!aug.startsWith("z")) {
            return encoding;
        }
        r.uleb(); // augmentation data length
        for (int i = 1; i < aug.length(); i++) {
            switch (aug.charAt(i)) {
                case 'R' -> encoding = r.u8();
                case 'L' -> r.u8();
                case 'P' -> {
                    int personality = r.u8();
                    pointer(r, personality & 0x7f, 0, false);
                }
                case 'S', 'B', 'G' -> { }
                default -> throw r.error(recordOffset, "unknown CIE augmentation '" + aug + "'");
            }
        }
        return encoding;
    }

    /** Reads one DW_EH_PE-encoded pointer; pc-relative ones are made absolute. */
    private static long pointer(ByteReader r, int encoding, long sectionAddress, boolean apply) {
        if (encoding == DW_EH_PE_OMIT) {
            return 0;
        }
        int at = r.position();
        long value = switch (encoding & 0x0f) {
            case 0x00, 0x04, 0x0c -> r.u64();
            case 0x01 -> r.uleb();
            case 0x02 -> r.u8() | r.u8() << 8;
            case 0x03 -> r.u32() & 0xffffffffL;
            case 0x09 -> r.sleb();
            case 0x0a -> (short) (r.u8() | r.u8() << 8);
            case 0x0b -> r.u32();
            default -> throw r.error(at, "unsupported pointer encoding 0x" + Integer.toHexString(encoding));
        };
        if (!apply) {
            return value;
        }
        return switch (encoding & 0x70) {
            case 0x00 -> value;
            case 0x10 -> sectionAddress + at + value;
            default -> throw r.error(at, "unsupported pointer application 0x" + Integer.toHexString(encoding));
        };
    }

    /** The FDE ranges of the file's .eh_frame section (empty if it has none). */
    static TreeMap<Long, Long> of(dev.splice.elf.ElfFile elf) {
        return elf.section(".eh_frame")
                .filter(s -> !s.isNobits() && s.size() > 0)
                .map(s -> parse(elf.contents(s), s.address(), elf.name() + ": .eh_frame"))
                .orElseGet(TreeMap::new);
    }
}
