package dev.splice.cfg;

import dev.splice.base.ByteReader;
import dev.splice.elf.ElfFile;
import dev.splice.elf.unwind.EhFrameRanges;
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

    private static final int DW_EH_PE_OMIT = 0xff;

    /** Per FDE start address, the absolute addresses of its landing pads (only FDEs with any). */
    public static Map<Long, long[]> of(ElfFile elf) {
        Map<Long, long[]> out = new TreeMap<>();
        for (Map.Entry<Long, Long> e : EhFrameRanges.lsdas(elf).entrySet()) {
            long lsda = e.getValue();
            dev.splice.elf.Section s = containing(elf, lsda);
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

    private static dev.splice.elf.Section containing(ElfFile elf, long address) {
        for (dev.splice.elf.Section s : elf.sections()) {
            if (s.isAllocated() && !s.isNobits() && address >= s.address() && address - s.address() < s.size()) {
                return s;
            }
        }
        return null;
    }

    /**
     * The landing pads of the LSDA at {@code offset} in a section's bytes, for the function at
     * {@code functionStart} (the default base of landing-pad offsets), sorted, without duplicates.
     */
    static long[] read(byte[] bytes, long sectionAddress, int offset, long functionStart, String source) {
        ByteReader r = new ByteReader(bytes, offset, bytes.length, source);
        int lpStartEncoding = r.u8();
        long lpStart = functionStart;
        if (lpStartEncoding != DW_EH_PE_OMIT) {
            lpStart = EhFrameRanges.pointer(r, lpStartEncoding, sectionAddress, true);
        }
        int typeEncoding = r.u8();
        if (typeEncoding != DW_EH_PE_OMIT) {
            r.uleb(); // offset of the type table: not needed for landing pads
        }
        int callSiteEncoding = r.u8();
        int tableStart = r.position();
        long tableLength = r.uleb();
        int tableEnd = r.position() + (int) Math.min(tableLength, Integer.MAX_VALUE);
        if (tableLength > r.remaining()) {
            throw r.error(tableStart, "call-site table length " + tableLength + " runs past the end of the section");
        }
        ByteReader table = new ByteReader(bytes, r.position(), tableEnd, source);
        TreeSet<Long> pads = new TreeSet<>();
        while (!table.atEnd()) {
            EhFrameRanges.pointer(table, callSiteEncoding & 0x0f, sectionAddress, false); // start
            EhFrameRanges.pointer(table, callSiteEncoding & 0x0f, sectionAddress, false); // length
            long landingPad = EhFrameRanges.pointer(table, callSiteEncoding & 0x0f, sectionAddress, false);
            table.uleb(); // action
            if (landingPad != 0) {
                pads.add(lpStart + landingPad);
            }
        }
        return pads.stream().mapToLong(Long::longValue).toArray();
    }
}
