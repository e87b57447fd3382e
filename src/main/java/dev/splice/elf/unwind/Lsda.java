package dev.splice.elf.unwind;

import dev.splice.base.ByteReader;
import java.util.ArrayList;
import java.util.List;

/**
 * A language-specific data area (in {@code .gcc_except_table}, found through an FDE's LSDA
 * pointer), as GCC's and LLVM's C++ runtimes read it: the landing-pad base (LPStart: the
 * function's start unless the header gives one), the type table's encoding and offset, and the
 * call-site table. Each call site says which range of the function may throw, where its landing
 * pad is (relative to the base; 0 for none) and which action to take (1 + offset into the action
 * table; 0 for cleanup only). The action and type tables themselves are not read.
 *
 * @param landingPadBase the address landing-pad offsets are relative to
 * @param typeTableEncoding the encoding of the type table ({@link PointerEncoding#DW_EH_PE_OMIT} without one)
 * @param callSiteEncoding the encoding of the call-site fields
 * @param callSites the call-site table, in order
 */
public record Lsda(long landingPadBase, int typeTableEncoding, int callSiteEncoding, List<CallSite> callSites) {
    /**
     * One row of the call-site table: offsets as stored, in the call-site encoding's value format.
     *
     * @param start the offset of the range from the landing-pad base
     * @param length the length of the range
     * @param landingPad the offset of the landing pad from the landing-pad base, or 0 for none
     * @param action 0 for cleanup only, else 1 + the offset of the first action
     */
    public record CallSite(long start, long length, long landingPad, long action) {}

    /**
     * Reads the LSDA at {@code offset} in a section.
     *
     * @param bytes the section's contents
     * @param sectionAddress the section's address
     * @param offset the LSDA's offset in the section
     * @param functionStart the start of the function it belongs to (the default landing-pad base)
     * @param source what the bytes are, for messages
     * @return the LSDA's header and call-site table
     * @throws dev.splice.base.BadInputException naming the source and the offset of what is malformed
     */
    public static Lsda read(byte[] bytes, long sectionAddress, int offset, long functionStart, String source) {
        ByteReader r = new ByteReader(bytes, offset, bytes.length, source);
        int lpStartEncoding = r.u8();
        long lpStart = functionStart;
        if (lpStartEncoding != PointerEncoding.DW_EH_PE_OMIT) {
            lpStart = PointerEncoding.read(r, lpStartEncoding, sectionAddress);
        }
        int typeEncoding = r.u8();
        if (typeEncoding != PointerEncoding.DW_EH_PE_OMIT) {
            r.uleb(); // offset of the type table
        }
        int callSiteEncoding = r.u8();
        int tableStart = r.position();
        long tableLength = r.uleb();
        if (tableLength > r.remaining()) {
            throw r.error(tableStart, "call-site table length " + tableLength + " runs past the end of the section");
        }
        ByteReader table = new ByteReader(bytes, r.position(), r.position() + (int) tableLength, source);
        int format = callSiteEncoding & 0x0f;
        List<CallSite> sites = new ArrayList<>();
        while (!table.atEnd()) {
            long start = PointerEncoding.readValue(table, format);
            long length = PointerEncoding.readValue(table, format);
            long landingPad = PointerEncoding.readValue(table, format);
            sites.add(new CallSite(start, length, landingPad, table.uleb()));
        }
        return new Lsda(lpStart, typeEncoding, callSiteEncoding, List.copyOf(sites));
    }
}
