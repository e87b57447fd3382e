package dev.splice.elf.unwind;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteReader;
import java.util.TreeMap;

/**
 * The code ranges of the FDEs in an {@code .eh_frame} section (start address -> length), as BOLT's
 * CFIReaderWriter keeps them: keyed by start address, the first non-empty FDE for an address winning
 * (BOLT's outputs hold two for a function it patched in place: the 5-byte jump, then the old body). perf2bolt makes functions from FDEs that no symbol covers ({@code
 * __BOLT_FDE_FUNCat...}) and widens a function to its FDE's length, so profile translation needs them.
 */
public final class EhFrameRanges {
    private EhFrameRanges() {}

    private static final int DW_EH_PE_OMIT = 0xff;

    /** Parses the section's records; a malformed record is refused with its offset. */
    static TreeMap<Long, Long> parse(byte[] bytes, long sectionAddress, String source) {
        TreeMap<Long, Long> fdes = new TreeMap<>();
        parse(bytes, sectionAddress, source, fdes, null);
        return fdes;
    }

    /**
     * Parses the section's records into {@code fdes} (start -> length) and {@code lsdas} (start ->
     * address of the FDE's LSDA, for the FDEs kept in {@code fdes} that have one; null: LSDAs are
     * not read, so an LSDA pointer Splice cannot decode does not refuse the function ranges).
     */
    private static void parse(byte[] bytes, long sectionAddress, String source, TreeMap<Long, Long> fdes,
                              TreeMap<Long, Long> lsdas) {
        java.util.Map<Integer, Cie> cies = new java.util.HashMap<>();
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
                cies.put(offset, cie(body, offset));
            } else {
                int cieOffset = (int) (start - id);
                Cie cie = cies.get(cieOffset);
                if (cie == null) {
                    throw r.error(offset, "FDE refers to no CIE at offset " + cieOffset);
                }
                long pcBegin = pointer(body, cie.fdeEncoding(), sectionAddress, true);
                long pcRange = pointer(body, cie.fdeEncoding() & 0x0f, sectionAddress, false);
                long lsda = 0;
                if (lsdas != null && cie.augmentationData() && cie.lsdaEncoding() != DW_EH_PE_OMIT
                        && (cie.lsdaEncoding() & 0x80) == 0) { // an indirect LSDA pointer: not read
                    body.uleb(); // augmentation data length
                    lsda = pointer(body, cie.lsdaEncoding(), sectionAddress, true);
                }
                if (pcRange != 0 && fdes.putIfAbsent(pcBegin, pcRange) == null && lsda != 0) {
                    lsdas.put(pcBegin, lsda);
                }
            }
            offset = end;
        }
    }

    /** What an FDE needs from its CIE: pointer encodings, and whether it has augmentation data ('z'). */
    private record Cie(int fdeEncoding, int lsdaEncoding, boolean augmentationData) {}

    /** The pointer encodings of a CIE ('R' and 'L' in its augmentation; absolute pointers, no LSDA otherwise). */
    private static Cie cie(ByteReader r, int recordOffset) {
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
        int lsdaEncoding = DW_EH_PE_OMIT;
        if (!aug.startsWith("z")) {
            return new Cie(encoding, lsdaEncoding, false);
        }
        r.uleb(); // augmentation data length
        for (int i = 1; i < aug.length(); i++) {
            switch (aug.charAt(i)) {
                case 'R' -> encoding = r.u8();
                case 'L' -> lsdaEncoding = r.u8();
                case 'P' -> {
                    int personality = r.u8();
                    pointer(r, personality & 0x7f, 0, false);
                }
                case 'S', 'B', 'G' -> { }
                default -> throw r.error(recordOffset, "unknown CIE augmentation '" + aug + "'");
            }
        }
        return new Cie(encoding, lsdaEncoding, true);
    }

    /** Reads one DW_EH_PE-encoded pointer; pc-relative ones are made absolute. */
    public static long pointer(ByteReader r, int encoding, long sectionAddress, boolean apply) {
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

    /**
     * The LSDAs of the file's .eh_frame FDEs: FDE start address -> LSDA address (for the FDE kept
     * for that address, see above; empty if there is no .eh_frame).
     */
    public static TreeMap<Long, Long> lsdas(dev.splice.elf.ElfFile elf) {
        TreeMap<Long, Long> lsdas = new TreeMap<>();
        elf.section(".eh_frame")
                .filter(s -> !s.isNobits() && s.size() > 0)
                .ifPresent(s -> parse(elf.contents(s), s.address(), elf.name() + ": .eh_frame", new TreeMap<>(), lsdas));
        return lsdas;
    }

    /** The FDE ranges of the file's .eh_frame section (empty if it has none). */
    public static TreeMap<Long, Long> of(dev.splice.elf.ElfFile elf) {
        return elf.section(".eh_frame")
                .filter(s -> !s.isNobits() && s.size() > 0)
                .map(s -> parse(elf.contents(s), s.address(), elf.name() + ": .eh_frame"))
                .orElseGet(TreeMap::new);
    }
}
