package dev.splice.patch;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteWriter;
import dev.splice.base.Le;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.elf.unwind.Cfa;
import dev.splice.elf.unwind.CfaReader;
import dev.splice.elf.unwind.EhFrame;
import dev.splice.elf.unwind.EhFrameHeader;
import dev.splice.elf.unwind.PointerEncoding;
import dev.splice.elf.unwind.UnwindFormatException;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves the .eh_frame FDEs of moved functions to the new code: pc_begin and pc_range are
 * rewritten, and every advance_loc of the CFA program is recomputed so that each row starts at the
 * new address of the code it described (a fragment inserted before an instruction belongs to the
 * row in force after the previous instruction). The records are read by {@link EhFrame}, the CFA
 * programs by {@link CfaReader}; this class only rewrites.
 *
 * <p>When every new CFA program fits its old FDE, all of this happens in place. Otherwise the
 * section grows the only way libgcc's static unwinder can follow: crtbeginT.o registers
 * {@code __EH_FRAME_BEGIN__} with {@code __register_frame_info}, and the unwinder walks the records
 * from there ({@code next = record + 4 + length}, 32-bit lengths, CIEs skipped, stop at a zero
 * length). The first FDE that does not fit becomes a CIE-shaped skip record whose length reaches
 * {@link #SECTION} in the new segment; that section holds copies of every record from there on
 * (moved FDEs with their grown programs, the others with their pc-relative fields re-encoded, the
 * CIEs they use copied before their first user) and the terminator. The old bytes after the skip
 * record are zeroed, and the .eh_frame section header ends where the skip record starts (section
 * readers see well-formed records only). The .eh_frame_hdr search table (if any) is updated and
 * re-sorted. See docs/patch.md, "Growing .eh_frame".
 * DW_CFA_set_loc, FDEs covering only part of a moved function, 64-bit records, CIE augmentations
 * other than z, R, L, P, S, B and encodings other than fixed-size absolute or pc-relative ones are
 * refused.
 */
final class EhFrameRewriter {
    /** The continuation of .eh_frame in the new segment, when it must grow. */
    static final String SECTION = ".splice.eh_frame";
    /** The label crtbeginT.o passes to __register_frame_info: where the unwinder starts walking. */
    static final String REGISTERED_START = "__EH_FRAME_BEGIN__";
    /** A minimal CIE body after the id: version 1, augmentation "", code align 1, data align -4, RA x1. */
    private static final byte[] SKIP_BODY = {1, 0, 1, 0x7c, 1};
    /** The CIE augmentation letters whose FDEs can be rewritten. */
    private static final String HANDLED_AUGMENTATION = "RLPSB";

    private final ElfFile elf;
    private final MovedCode moved;
    private final RelocationIndex relocations;
    private final String file;

    EhFrameRewriter(ElfFile elf, MovedCode moved, RelocationIndex relocations) {
        this.elf = elf;
        this.moved = moved;
        this.relocations = relocations;
        this.file = elf.name();
    }

    /**
     * A record of .eh_frame as the rewrite sees it: for the FDE of a moved function, the function
     * and its re-computed CFA program.
     */
    private record Rec(EhFrame.Entry record, MovedFunction moved, byte[] program) {
        int at() {
            return record.offset();
        }

        /** The start of the code the record describes in the output (an FDE's), else -1. */
        long newStart() {
            return moved != null ? moved.newStart : record instanceof EhFrame.Fde f ? f.pcBegin() : -1;
        }

        boolean fitsInPlace() {
            return moved == null || program.length <= record.end() - record.instructions();
        }
    }

    /** Old FDE initial location -> new one, for the header table. */
    private final Map<Long, Long> movedStarts = new HashMap<>();
    /** Old FDE address -> address of its copy in {@link #SECTION}, for the header table. */
    private final Map<Long, Long> movedFdes = new HashMap<>();

    /**
     * Rewrites .eh_frame (through the editor) and .eh_frame_hdr. Returns the bytes of
     * {@link #SECTION}, to be placed at {@code continuationAddress}, or null when everything fit in
     * place.
     */
    byte[] rewrite(ElfEditor editor, long continuationAddress) {
        Section eh = elf.section(".eh_frame").orElse(null);
        if (eh == null) {
            return null;
        }
        byte[] b = elf.contents(eh);
        EhFrame frame;
        try {
            frame = EhFrame.parse(b, eh.address(), file + ": .eh_frame");
        } catch (BadInputException e) {
            throw new PatchException(Reason.UNWIND_INFO, e.getMessage());
        }
        List<Rec> records = new ArrayList<>();
        for (EhFrame.Entry r : frame.records()) {
            records.add(r instanceof EhFrame.Fde f ? fde(frame, b, f) : cie((EhFrame.Cie) r));
        }
        int split = 0;
        while (split < records.size() && records.get(split).fitsInPlace()) {
            split++;
        }
        for (Rec r : records.subList(0, split)) {
            if (r.moved != null) {
                inPlace(b, eh, r);
            }
        }
        byte[] continuation = null;
        if (split < records.size()) {
            Rec first = records.get(split);
            checkRegisteredStart(eh, first);
            continuation = continuation(frame, b, eh, records.subList(split, records.size()), continuationAddress);
            skip(b, eh, first, frame.terminator(), continuationAddress);
        }
        editor.setContents(eh.index(), b);
        if (continuation != null) {
            // The section ends where the skip record starts: what section readers see stays well-formed.
            int end = records.get(split).at();
            editor.setSection(new Section(eh.index(), eh.name(), eh.type(), eh.flags(), eh.address(), eh.offset(), end,
                    eh.link(), eh.info(), eh.alignment(), eh.entrySize()));
        }
        rewriteHeader(editor);
        return continuation;
    }

    /** A CIE, refused unless its FDEs and its personality pointer can be rewritten. */
    private Rec cie(EhFrame.Cie c) {
        if (c.augmentation().contains("eh")) {
            throw refuse(c.offset(), "CIE augmentation \"eh\" is not handled");
        }
        if (c.hasAugmentationData()) {
            for (char letter : c.augmentation().substring(1).toCharArray()) {
                if (HANDLED_AUGMENTATION.indexOf(letter) < 0) {
                    throw refuse(c.offset(), "CIE augmentation '" + letter + "' is not handled");
                }
            }
        }
        if (c.personalityField() >= 0) {
            checkFixedSize(c.personalityEncoding(), c.offset());
        }
        return new Rec(c, null, null);
    }

    private Rec fde(EhFrame frame, byte[] b, EhFrame.Fde f) {
        int at = f.offset();
        checkFixedSize(f.cie().fdeEncoding(), at);
        long begin = f.pcBegin();
        long range = f.pcRange();
        long lsda = 0;
        if (f.lsdaField() >= 0) {
            lsda = pointer(frame, f, f.lsdaField(), f.cie().lsdaEncoding());
        }
        MovedFunction m = moved.find(begin);
        MovedFunction mEnd = range > 0 ? moved.find(begin + range - 1) : null;
        if (m == null && mEnd == null) {
            return new Rec(f, null, null);
        }
        if (m == null || m != mEnd || begin != m.function.address() || range != m.function.size()) {
            MovedFunction culprit = m != null ? m : mEnd;
            throw new PatchException(Reason.UNWIND_INFO, refuse(at, "FDE [0x" + Long.toHexString(begin) + ", 0x" + Long.toHexString(begin + range)
                    + ") covers moved code but not exactly one whole moved function").getMessage(), culprit.function.address());
        }
        if (lsda != 0 && !relocations.appliesTo(lsda)) {
            throw new PatchException(Reason.LSDA_WITHOUT_RELOCATIONS, file + ": function '" + m.function.name()
                    + "' has a C++ exception table "
                    + "(LSDA at 0x" + Long.toHexString(lsda) + ") without relocations; its call-site ranges "
                    + "cannot be migrated, so it cannot move");
        }
        try {
            return new Rec(f, m, newProgram(frame, b, f, begin, m.newStart));
        } catch (PatchException e) {
            throw new PatchException(e.reason(), e.getMessage() + " (function '" + m.function.name() + "')", m.function.address());
        }
    }

    /** Rewrites a moved function's FDE where it is: its new program fits (padded with DW_CFA_nop). */
    private void inPlace(byte[] b, Section eh, Rec r) {
        EhFrame.Fde f = (EhFrame.Fde) r.record;
        int enc = f.cie().fdeEncoding();
        try {
            write(b, f.pcBeginField(), enc, eh.address() + f.pcBeginField(), r.moved.newStart, f.offset());
            write(b, f.pcBeginField() + PointerEncoding.size(enc), enc & 0x0f, 0, r.moved.newSize, f.offset());
        } catch (PatchException e) {
            throw new PatchException(e.reason(), e.getMessage() + " (function '" + r.moved.function.name() + "')", r.moved.function.address());
        }
        System.arraycopy(r.program, 0, b, f.instructions(), r.program.length);
        Arrays.fill(b, f.instructions() + r.program.length, f.end(), (byte) 0);
        movedStarts.put(f.pcBegin(), r.moved.newStart);
    }

    /**
     * The unwinder only walks forward from the registered start, so that start must not lie past
     * the skip record (the records before it, e.g. crt1.o's, are not registered and cannot grow).
     */
    private void checkRegisteredStart(Section eh, Rec first) {
        Symbol start = elf.symbol(REGISTERED_START).orElse(null);
        if (start != null && eh.contains(start.value()) && start.value() > eh.address() + first.at()) {
            throw refuse(first.at(), "this FDE must grow, but it lies before " + REGISTERED_START + " (0x"
                    + Long.toHexString(start.value()) + "), where the unwinder starts walking, so no skip record can "
                    + "lead past it (.eh_frame cannot grow here)");
        }
    }

    /**
     * Copies of {@code tail} for {@link #SECTION} at {@code address}: the CIEs first (those of the
     * tail and those its FDEs use, in section order), then the FDEs by their new pc_begin, then the
     * terminator. The order matters to libgcc: at the first throw it sorts a registered object's
     * FDEs, keeping the longest ascending run as it comes and heap-sorting the rest, and FDEs of
     * moved functions left in the input's order among unmoved ones made most of them "erratic"
     * (in exceptions.relocs with every function moved the sort cost 2.2 times the input's).
     */
    private byte[] continuation(EhFrame frame, byte[] b, Section eh, List<Rec> tail, long address) {
        ByteWriter out = new ByteWriter();
        Map<Integer, Integer> cieCopies = new HashMap<>();
        List<Rec> fdes = new ArrayList<>();
        for (Rec r : tail) {
            EhFrame.Cie c = r.record instanceof EhFrame.Cie own ? own : ((EhFrame.Fde) r.record).cie();
            if (!cieCopies.containsKey(c.offset())) {
                copyCie(frame, b, c, out, address, cieCopies);
            }
            if (r.record instanceof EhFrame.Fde) {
                fdes.add(r);
            }
        }
        fdes.sort(java.util.Comparator.comparingLong(Rec::newStart));
        for (Rec r : fdes) {
            copyFde(frame, b, eh, r, out, address, cieCopies.get(((EhFrame.Fde) r.record).cie().offset()));
        }
        out.u32(0);
        return out.toByteArray();
    }

    private void copyCie(EhFrame frame, byte[] b, EhFrame.Cie c, ByteWriter out, long address, Map<Integer, Integer> copies) {
        int at = out.size();
        byte[] r = Arrays.copyOfRange(b, c.offset(), c.end());
        if (c.personalityField() >= 0) {
            int field = c.personalityField() - c.offset();
            long personality = pointer(frame, c, c.personalityField(), c.personalityEncoding());
            write(r, field, c.personalityEncoding(), address + at + field, personality, c.offset());
        }
        copies.put(c.offset(), at);
        out.bytes(r);
    }

    private void copyFde(EhFrame frame, byte[] b, Section eh, Rec rec, ByteWriter out, long address, int cieCopy) {
        EhFrame.Fde f = (EhFrame.Fde) rec.record;
        int at = out.size();
        byte[] program = rec.moved != null ? rec.program : Arrays.copyOfRange(b, f.instructions(), f.end());
        int fields = f.instructions() - f.pcBeginField();
        int size = (8 + fields + program.length + 3) & -4;
        byte[] r = new byte[size];
        Le.putU32(r, 0, size - 4);
        Le.putU32(r, 4, at + 4 - cieCopy);
        System.arraycopy(b, f.pcBeginField(), r, 8, fields);
        System.arraycopy(program, 0, r, 8 + fields, program.length);
        int enc = f.cie().fdeEncoding();
        try {
            write(r, 8, enc, address + at + 8, rec.moved != null ? rec.moved.newStart : f.pcBegin(), f.offset());
            if (rec.moved != null) {
                write(r, 8 + PointerEncoding.size(enc), enc & 0x0f, 0, rec.moved.newSize, f.offset());
                movedStarts.put(f.pcBegin(), rec.moved.newStart);
            }
            if (f.lsdaField() >= 0) {
                int field = 8 + f.lsdaField() - f.pcBeginField();
                long lsda = pointer(frame, f, f.lsdaField(), f.cie().lsdaEncoding());
                write(r, field, f.cie().lsdaEncoding(), address + at + field, lsda, f.offset());
            }
        } catch (PatchException e) {
            throw rec.moved == null ? e
                    : new PatchException(e.reason(), e.getMessage() + " (function '" + rec.moved.function.name() + "')",
                            rec.moved.function.address());
        }
        movedFdes.put(eh.address() + f.offset(), address + at);
        out.bytes(r);
    }

    /**
     * Turns the record at {@code at} into a CIE (id 0, which every walker skips) whose length
     * reaches the continuation, and zeroes the records it replaces: no reader of the section finds a
     * stale FDE there, and a reader that ignores the length sees only DW_CFA_nop.
     */
    private void skip(byte[] b, Section eh, Rec replaced, int terminator, long continuationAddress) {
        int at = replaced.at();
        long length = continuationAddress - (eh.address() + at) - 4;
        if (length < 4 + SKIP_BODY.length || length >= 0xffffffffL) {
            throw refuse(at, "the continuation at 0x" + Long.toHexString(continuationAddress)
                    + " is out of reach of a 32-bit record length (.eh_frame cannot grow)");
        }
        Arrays.fill(b, at, terminator, (byte) 0);
        Le.putU32(b, at, (int) length);
        if (replaced.record.end() - at - 8 >= SKIP_BODY.length) { // else zeros: no unwinder reads a CIE that no FDE names
            System.arraycopy(SKIP_BODY, 0, b, at + 8, SKIP_BODY.length);
        }
    }

    /**
     * The FDE's CFA program re-encoded with the new advances, each in the smallest form that holds
     * it, without the DW_CFA_nop padding (the caller pads).
     */
    private byte[] newProgram(EhFrame frame, byte[] b, EhFrame.Fde f, long oldLoc, long newLoc) {
        int at = f.offset();
        long codeAlign = f.cie().codeAlignment();
        ByteWriter out = new ByteWriter();
        CfaReader cfa = frame.cfaReader(f);
        try {
            while (cfa.next()) {
                if (cfa.isAdvance()) {
                    long oldNext = oldLoc + cfa.delta() * codeAlign;
                    long newNext = moved.mapFallThrough(oldNext);
                    long newDelta = newNext - newLoc;
                    if (newDelta < 0 || newDelta % codeAlign != 0) {
                        throw refuse(at, "CFA row at 0x" + Long.toHexString(oldNext) + " cannot be moved");
                    }
                    Cfa.writeAdvance(out, newDelta / codeAlign);
                    oldLoc = oldNext;
                    newLoc = newNext;
                } else if (cfa.opcode() == Cfa.DW_CFA_SET_LOC) {
                    throw refuse(at, "DW_CFA_set_loc is not handled");
                } else if (cfa.opcode() != Cfa.DW_CFA_NOP) {
                    out.bytes(b, cfa.start(), cfa.end() - cfa.start());
                }
            }
        } catch (UnwindFormatException e) {
            throw refuse(at, e.reason());
        }
        return out.toByteArray();
    }

    private void rewriteHeader(ElfEditor editor) {
        Section hdr = elf.section(".eh_frame_hdr").orElse(null);
        if (hdr == null || movedStarts.isEmpty()) {
            return;
        }
        byte[] b = elf.contents(hdr);
        EhFrameHeader header;
        try {
            header = EhFrameHeader.parse(b, hdr.address(), file + ": .eh_frame_hdr");
        } catch (UnwindFormatException e) {
            throw new PatchException(Reason.UNWIND_INFO, e.offset() == 0 ? file + ": .eh_frame_hdr has an encoding Splice does not handle"
                    : e.getMessage());
        } catch (BadInputException e) {
            throw new PatchException(Reason.UNWIND_INFO, e.getMessage());
        }
        List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < header.count(); i++) {
            long loc = header.initialLocation(i);
            long fde = header.fdeAddress(i);
            rows.add(new long[] {movedStarts.getOrDefault(loc, loc), movedFdes.getOrDefault(fde, fde)});
        }
        rows.sort((x, y) -> Long.compare(x[0], y[0]));
        int p = header.tableOffset();
        for (int i = 0; i < rows.size(); i++) {
            long rel = rows.get(i)[0] - hdr.address();
            long fdeRel = rows.get(i)[1] - hdr.address();
            if (!Rv.fits(rel, 32) || !Rv.fits(fdeRel, 32)) {
                throw new PatchException(Reason.UNWIND_INFO, file + ": .eh_frame_hdr cannot reach the moved code or its FDE");
            }
            Le.putU32(b, p + EhFrameHeader.ROW_SIZE * i, (int) rel);
            Le.putU32(b, p + EhFrameHeader.ROW_SIZE * i + 4, (int) fdeRel);
        }
        editor.setContents(hdr.index(), b);
    }

    /** Refuses encodings without a fixed size: their fields could not be rewritten in place. */
    private void checkFixedSize(int enc, int at) {
        if (PointerEncoding.size(enc) < 0) {
            throw refuse(at, "pointer encoding 0x" + Integer.toHexString(enc) + " is not handled");
        }
    }

    /** A pointer field of a record, absolute; refused unless fixed-size and absolute or pc-relative. */
    private long pointer(EhFrame frame, EhFrame.Entry r, int field, int enc) {
        checkFixedSize(enc, r.offset());
        if (!PointerEncoding.isApplied(enc)) {
            throw refuse(r.offset(), "pointer encoding 0x" + Integer.toHexString(enc) + " is not handled");
        }
        try {
            return frame.pointer(r, field, enc);
        } catch (BadInputException e) {
            throw refuse(r.offset(), "a field of this record runs past the end of the section");
        }
    }

    private void write(byte[] b, int p, int enc, long fieldAddress, long value, int at) {
        checkFixedSize(enc, at);
        if (!PointerEncoding.write(b, p, enc, fieldAddress, value)) {
            throw refuse(at, "value 0x" + Long.toHexString(value) + " does not fit its pointer encoding");
        }
    }

    private PatchException refuse(int at, String why) {
        return new PatchException(Reason.UNWIND_INFO, file + ": .eh_frame+0x" + Integer.toHexString(at) + ": " + why);
    }
}
