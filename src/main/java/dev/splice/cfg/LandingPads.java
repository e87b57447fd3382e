package dev.splice.cfg;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.unwind.EhFrameRanges;
import dev.splice.elf.unwind.Lsda;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The landing pads of the functions that have an LSDA (the call-site tables in
 * {@code .gcc_except_table}, found through the FDEs of {@code .eh_frame}), as BOLT's
 * BinaryFunction::parseLSDA reads them: each landing pad is a label, so it starts a basic block of
 * perf2bolt's CFG, and a trace into one is not moved back to a call before it.
 */
public final class LandingPads {
    private LandingPads() {}

    /**
     * The landing pads of the file's functions.
     *
     * @param elf the file
     * @return per FDE start address, the absolute addresses of its landing pads, sorted (only FDEs with any)
     */
    public static Map<Long, long[]> of(ElfFile elf) {
        Map<Long, long[]> out = new TreeMap<>();
        for (Map.Entry<Long, Long> e : EhFrameRanges.lsdas(elf).entrySet()) {
            long lsda = e.getValue();
            Section s = containing(elf, lsda);
            if (s == null) {
                continue; // BOLT too ignores an LSDA outside the file's sections
            }
            long[] pads = read(elf.contents(s), s.address(), (int) (lsda - s.address()), e.getKey(),
                    elf.name() + ": " + s.name());
            if (pads.length > 0) {
                out.put(e.getKey(), pads);
            }
        }
        return out;
    }

    private static Section containing(ElfFile elf, long address) {
        for (Section s : elf.sections()) {
            if (s.isAllocated() && !s.isNobits() && address >= s.address() && address - s.address() < s.size()) {
                return s;
            }
        }
        return null;
    }

    /**
     * The landing pads of the LSDA at {@code offset} in a section's bytes, for the function at
     * {@code functionStart} (the default base of landing-pad offsets), sorted, without duplicates:
     * BOLT's rule, a call site with a landing-pad offset other than 0 has a landing pad at the base
     * plus that offset.
     */
    static long[] read(byte[] bytes, long sectionAddress, int offset, long functionStart, String source) {
        Lsda lsda = Lsda.read(bytes, sectionAddress, offset, functionStart, source);
        TreeSet<Long> pads = new TreeSet<>();
        for (Lsda.CallSite site : lsda.callSites()) {
            if (site.landingPad() != 0) {
                pads.add(lsda.landingPadBase() + site.landingPad());
            }
        }
        return pads.stream().mapToLong(Long::longValue).toArray();
    }
}
