package dev.splice.elf.unwind;

import dev.splice.elf.ElfFile;
import java.util.TreeMap;

/**
 * The code ranges of the FDEs in an {@code .eh_frame} section (start address -> length), as BOLT's
 * CFIReaderWriter keeps them: keyed by start address, the first non-empty FDE for an address winning
 * (BOLT's outputs hold two for a function it patched in place: the 5-byte jump, then the old body).
 * perf2bolt makes functions from FDEs that no symbol covers ({@code __BOLT_FDE_FUNCat...}) and
 * widens a function to its FDE's length, so profile translation needs them.
 */
public final class EhFrameRanges {
    private EhFrameRanges() {}

    /** Parses the section's records; a malformed record is refused with its offset. */
    static TreeMap<Long, Long> parse(byte[] bytes, long sectionAddress, String source) {
        TreeMap<Long, Long> fdes = new TreeMap<>();
        collect(EhFrame.parse(bytes, sectionAddress, source), fdes, null);
        return fdes;
    }

    /**
     * Collects the FDEs into {@code fdes} (start -> length) and {@code lsdas} (start -> address of
     * the FDE's LSDA, for the FDEs kept in {@code fdes} that have a direct one; null: LSDAs are not
     * read, so an LSDA pointer Splice cannot decode does not refuse the function ranges).
     */
    private static void collect(EhFrame frame, TreeMap<Long, Long> fdes, TreeMap<Long, Long> lsdas) {
        for (EhFrame.Entry r : frame.records()) {
            if (!(r instanceof EhFrame.Fde f)) {
                continue;
            }
            long lsda = 0;
            if (lsdas != null && f.lsdaField() >= 0 && (f.cie().lsdaEncoding() & PointerEncoding.DW_EH_PE_INDIRECT) == 0) {
                lsda = frame.lsda(f);
            }
            if (f.pcRange() != 0 && fdes.putIfAbsent(f.pcBegin(), f.pcRange()) == null && lsda != 0) {
                lsdas.put(f.pcBegin(), lsda);
            }
        }
    }

    /**
     * The LSDAs of the file's {@code .eh_frame} FDEs.
     *
     * @param elf the file
     * @return FDE start address -> LSDA address, for the FDE kept for that address (see above) when
     *     it has a direct LSDA pointer; empty if there is no {@code .eh_frame}
     */
    public static TreeMap<Long, Long> lsdas(ElfFile elf) {
        TreeMap<Long, Long> lsdas = new TreeMap<>();
        EhFrame.of(elf).ifPresent(frame -> collect(frame, new TreeMap<>(), lsdas));
        return lsdas;
    }

    /**
     * The FDE ranges of the file's {@code .eh_frame} section.
     *
     * @param elf the file
     * @return FDE start address -> length, the first non-empty FDE for an address winning; empty
     *     if the file has no {@code .eh_frame}
     */
    public static TreeMap<Long, Long> of(ElfFile elf) {
        TreeMap<Long, Long> fdes = new TreeMap<>();
        EhFrame.of(elf).ifPresent(frame -> collect(frame, fdes, null));
        return fdes;
    }
}
