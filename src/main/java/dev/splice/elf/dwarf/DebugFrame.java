package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import dev.splice.base.ByteWriter;
import dev.splice.elf.unwind.Cfa;
import dev.splice.elf.unwind.CfaReader;
import dev.splice.elf.unwind.PointerEncoding;
import dev.splice.elf.unwind.UnwindFormatException;
import java.util.HashMap;
import java.util.Map;

/**
 * Rewrites {@code .debug_frame} (the debugger's call frame information, which gcc emits for
 * {@code -g} with {@code -fno-asynchronous-unwind-tables}) for moved code, as {@code .eh_frame} is
 * rewritten: the FDE of a moved function gets the new initial location and range, and every
 * advance of its CFA program is recomputed so that each row starts where the code it described
 * starts now (code inserted before an instruction belongs to the row in force after the previous
 * instruction: {@link AddressMap#start}), re-encoded in the smallest form. The section is not
 * loaded, so it is written anew: every record in its order, a record whose new program does not fit
 * grown (padded to 8 bytes with {@code DW_CFA_nop}), every FDE's CIE pointer to its CIE's new
 * offset. FDEs over no moved code keep their bytes. An FDE that covers moved code but not exactly
 * one moved function, {@code DW_CFA_set_loc} in a moved function's program, CIE augmentations,
 * segment selectors, address sizes other than 8 and 64-bit records are refused.
 */
final class DebugFrame {
    /** The section's name. */
    static final String SECTION = ".debug_frame";
    private static final long CIE_ID = 0xffffffffL;
    private static final int ADDRESS_SIZE = 8;

    private DebugFrame() {}

    /** A CIE as this class needs it: the code alignment factor. */
    private record Cie(long codeAlignment) {}

    /**
     * The new bytes of {@code .debug_frame}, or null when no FDE covers moved code.
     *
     * @throws UnsupportedDwarfException when an FDE over moved code cannot be rewritten exactly
     */
    static byte[] rewrite(byte[] section, AddressMap map) {
        Map<Integer, Cie> cies = new HashMap<>();
        Map<Integer, Integer> newOffsets = new HashMap<>();
        ByteWriter out = new ByteWriter();
        boolean changed = false;
        int at = 0;
        while (at < section.length) {
            ByteReader r = UnitLength.unit(section, at, SECTION);
            int end = r.position() + r.remaining();
            long id = r.u32() & 0xffffffffL;
            newOffsets.put(at, out.size());
            if (id == CIE_ID) {
                cies.put(at, cie(r, at));
                out.bytes(section, at, end - at);
            } else {
                Cie cie = cies.get((int) id);
                Integer cieOffset = newOffsets.get((int) id);
                if (cie == null || cieOffset == null) {
                    throw new UnsupportedDwarfException(SECTION, at, "an FDE whose CIE pointer 0x" + Long.toHexString(id)
                            + " names no CIE before it");
                }
                long begin = r.u64();
                long range = r.u64();
                int program = r.position();
                if (!map.moves(begin, begin + range)) {
                    out.bytes(section, at, 4);
                    out.u32(cieOffset);
                    out.bytes(section, at + 8, end - at - 8);
                } else {
                    changed = true;
                    movedFde(section, at, program, end, begin, range, cie, cieOffset, map, out);
                }
            }
            at = end;
        }
        return changed ? out.toByteArray() : null;
    }

    private static Cie cie(ByteReader r, int at) {
        int version = r.u8();
        if (version != 1 && version != 3 && version != 4) {
            throw new UnsupportedDwarfException(SECTION, at, "CIE version " + version + " is not handled");
        }
        String augmentation = r.cstring();
        if (!augmentation.isEmpty()) {
            throw new UnsupportedDwarfException(SECTION, at, "CIE augmentation \"" + augmentation + "\" is not handled");
        }
        if (version == 4) {
            int addressSize = r.u8();
            int segmentSize = r.u8();
            if (addressSize != ADDRESS_SIZE || segmentSize != 0) {
                throw new UnsupportedDwarfException(SECTION, at, "CIE with address size " + addressSize + " and segment selector size "
                        + segmentSize + " (only 8 and 0 are handled)");
            }
        }
        long codeAlignment = r.uleb();
        if (codeAlignment <= 0) {
            throw new UnsupportedDwarfException(SECTION, at, "CIE code alignment factor " + codeAlignment);
        }
        return new Cie(codeAlignment);
    }

    /** Writes the FDE of a moved function at its new place, its program's advances recomputed. */
    private static void movedFde(byte[] section, int at, int program, int end, long begin, long range, Cie cie, int cieOffset,
            AddressMap map, ByteWriter out) {
        long stop = begin + range;
        // Exactly one moved function: moved code starts at begin (a boundary there) and ends at stop.
        if (range <= 0 || map.nextBoundary(begin - 1) != begin || !map.moves(begin, begin + 1) || map.nextBoundary(begin) != stop) {
            throw new UnsupportedDwarfException(SECTION, at, "FDE [0x" + Long.toHexString(begin) + ", 0x" + Long.toHexString(stop)
                    + ") covers moved code but not exactly one whole moved function");
        }
        long[] copy = new long[2];
        int[] pieces = {0};
        map.ranges(begin, stop, (from, to) -> {
            copy[0] = from;
            copy[1] = to;
            pieces[0]++;
        });
        if (pieces[0] != 1) {
            throw new UnsupportedDwarfException(SECTION, at, "the moved function [0x" + Long.toHexString(begin) + ", 0x"
                    + Long.toHexString(stop) + ") is not one range now");
        }
        byte[] instructions = program(section, at, program, end, begin, cie.codeAlignment, map);
        int oldSize = end - at;
        int size = Math.max(oldSize, (4 + 4 + 2 * ADDRESS_SIZE + instructions.length + ADDRESS_SIZE - 1) & -ADDRESS_SIZE);
        out.u32(size - 4);
        out.u32(cieOffset);
        out.u64(copy[0]);
        out.u64(copy[1] - copy[0]);
        out.bytes(instructions);
        for (int pad = size - 4 - 4 - 2 * ADDRESS_SIZE - instructions.length; pad > 0; pad--) {
            out.u8(Cfa.DW_CFA_NOP);
        }
    }

    /** The CFA program with every advance recomputed for the new code, without DW_CFA_nop padding. */
    private static byte[] program(byte[] section, int at, int start, int end, long begin, long codeAlignment, AddressMap map) {
        ByteWriter out = new ByteWriter();
        CfaReader cfa = new CfaReader(section, start, end, PointerEncoding.DW_EH_PE_UDATA8, SECTION);
        long oldLoc = begin;
        long newLoc = map.start(begin);
        try {
            while (cfa.next()) {
                if (cfa.isAdvance()) {
                    long oldNext = oldLoc + cfa.delta() * codeAlignment;
                    long newNext = map.start(oldNext);
                    long newDelta = newNext - newLoc;
                    if (newDelta < 0 || newDelta % codeAlignment != 0 || newDelta / codeAlignment > 0xffffffffL) {
                        throw new UnsupportedDwarfException(SECTION, at, "the CFA row at 0x" + Long.toHexString(oldNext) + " cannot be moved");
                    }
                    Cfa.writeAdvance(out, newDelta / codeAlignment);
                    oldLoc = oldNext;
                    newLoc = newNext;
                } else if (cfa.opcode() == Cfa.DW_CFA_SET_LOC) {
                    throw new UnsupportedDwarfException(SECTION, at, "DW_CFA_set_loc in a moved function's FDE is not handled");
                } else if (cfa.opcode() != Cfa.DW_CFA_NOP) {
                    out.bytes(section, cfa.start(), cfa.end() - cfa.start());
                }
            }
        } catch (UnwindFormatException e) {
            throw new UnsupportedDwarfException(SECTION, at, e.getMessage());
        }
        return out.toByteArray();
    }
}
