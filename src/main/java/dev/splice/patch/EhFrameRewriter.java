package dev.splice.patch;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteWriter;
import dev.splice.base.Le;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.elf.reloc.RiscVRelocations;
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
 *
 * <p>An input that an earlier pass gave a continuation (a second {@code splice patch}) has its
 * records in two sections: .eh_frame up to the skip record, and the continuation the skip record
 * leads to. Both are read; the continuation's records are always copied into the new one (the
 * old continuation's header gets size 0), so that there is one continuation whatever the number of
 * passes. The pointer fields of moved FDEs and of every record of the continuation are kept as
 * {@link #fields()}, from which {@link OutputRelocations} writes the relocations that describe them.
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
    private record Rec(Part part, EhFrame.Entry record, MovedFunction moved, byte[] program) {
        int at() {
            return record.offset();
        }

        long address() {
            return part.section.address() + record.offset();
        }

        /** The start of the code the record describes in the output (an FDE's), else -1. */
        long newStart() {
            return moved != null ? moved.newStart : record instanceof EhFrame.Fde f ? f.pcBegin() : -1;
        }

        boolean fitsInPlace() {
            return moved == null || program.length <= record.end() - record.instructions();
        }
    }

    /** A section of records the unwinder walks: .eh_frame, or the continuation an earlier pass made. */
    private record Part(Section section, byte[] bytes, EhFrame frame) {}

    /**
     * A pointer field Splice wrote, as its relocation: at {@code address}, of relocation
     * {@code type} ({@code R_RISCV_32_PCREL}, {@code R_RISCV_64}, or the {@code ADD}/{@code SUB}
     * pair of a pc_range), whose symbol plus addend is {@code value} in the output.
     */
    record Field(long address, int type, long value) {}

    /** Old FDE initial location -> new one, for the header table. */
    private final Map<Long, Long> movedStarts = new HashMap<>();
    /** Old FDE address -> address of its copy in {@link #SECTION}, for the header table. */
    private final Map<Long, Long> movedFdes = new HashMap<>();
    /** The pointer fields written, for the output's relocations. */
    private final List<Field> fields = new ArrayList<>();
    /** The FDEs rewritten in place, {start, end} addresses, in address order. */
    private final List<long[]> rewrittenInPlace = new ArrayList<>();

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
        Part main = part(eh);
        Part earlier = earlierContinuation(eh);
        List<Rec> records = new ArrayList<>();
        for (Part p : earlier == null ? List.of(main) : List.of(main, earlier)) {
            for (EhFrame.Entry r : p.frame.records()) {
                records.add(r instanceof EhFrame.Fde f ? fde(p, f) : cie(p, (EhFrame.Cie) r));
            }
        }
        int split = 0;
        while (split < records.size() && records.get(split).part == main && records.get(split).fitsInPlace()) {
            split++;
        }
        for (Rec r : records.subList(0, split)) {
            if (r.moved != null) {
                inPlace(eh, r);
            }
        }
        byte[] continuation = null;
        if (split < records.size()) {
            Rec first = records.get(split);
            checkRegisteredStart(eh, first);
            continuation = continuation(records.subList(split, records.size()), continuationAddress);
            if (first.part == main) {
                skip(main.bytes, eh, first, main.frame.terminator(), continuationAddress);
            } else { // every record of .eh_frame stays: the earlier skip record leads to the new continuation
                relink(editor, eh, continuationAddress);
            }
        }
        editor.setContents(eh.index(), main.bytes);
        if (continuation != null && records.get(split).part == main) {
            // The section ends where the skip record starts: what section readers see stays well-formed.
            int end = records.get(split).at();
            editor.setSection(new Section(eh.index(), eh.name(), eh.type(), eh.flags(), eh.address(), eh.offset(), end,
                    eh.link(), eh.info(), eh.alignment(), eh.entrySize()));
        }
        if (earlier != null && continuation != null) { // its records were copied: nothing reads it now
            Section old = earlier.section;
            editor.setSection(new Section(old.index(), old.name(), old.type(), old.flags(), old.address(), old.offset(), 0,
                    old.link(), old.info(), old.alignment(), old.entrySize()));
        }
        rewriteHeader(editor);
        return continuation;
    }

    /**
     * The pointer fields of the records rewritten in place and of the continuation, as relocations
     * describe them; valid after {@link #rewrite}.
     */
    List<Field> fields() {
        return fields;
    }

    /** True if {@code address} lies in an FDE of a moved function that was rewritten in place; valid after {@link #rewrite}. */
    boolean inRewrittenRecord(long address) {
        int lo = 0;
        int hi = rewrittenInPlace.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long[] r = rewrittenInPlace.get(mid);
            if (address < r[0]) {
                hi = mid - 1;
            } else if (address >= r[1]) {
                lo = mid + 1;
            } else {
                return true;
            }
        }
        return false;
    }

    private Part part(Section s) {
        byte[] b = elf.contents(s);
        try {
            return new Part(s, b, EhFrame.parse(b, s.address(), file + ": " + s.name()));
        } catch (BadInputException e) {
            throw new PatchException(Reason.UNWIND_INFO, e.getMessage());
        }
    }

    /**
     * The continuation an earlier pass made: the section named {@link #SECTION} where the skip
     * record right after .eh_frame's (shortened) end leads, or null.
     */
    private Part earlierContinuation(Section eh) {
        long skipAt = eh.offset() + eh.size();
        if (eh.isNobits() || skipAt + 4 > elf.length()) {
            return null;
        }
        java.nio.ByteBuffer file = elf.bytes();
        long length = 0;
        for (int i = 3; i >= 0; i--) {
            length = length << 8 | file.get((int) skipAt + i) & 0xff;
        }
        long target = eh.address() + eh.size() + 4 + length;
        for (Section s : elf.sections()) {
            if (length != 0 && s.name().equals(SECTION) && s.address() == target && s.size() > 0 && s.isAllocated()) {
                return part(s);
            }
        }
        return null;
    }

    /** Points the earlier pass's skip record, right after .eh_frame, at the new continuation. */
    private void relink(ElfEditor editor, Section eh, long continuationAddress) {
        long length = continuationAddress - (eh.address() + eh.size()) - 4;
        if (length < 4 + SKIP_BODY.length || length >= 0xffffffffL) {
            throw refuse((int) eh.size(), "the continuation at 0x" + Long.toHexString(continuationAddress)
                    + " is out of reach of a 32-bit record length (.eh_frame cannot grow)");
        }
        byte[] field = new byte[4];
        Le.putU32(field, 0, (int) length);
        editor.patch(eh.offset() + eh.size(), field);
    }

    /** A CIE, refused unless its FDEs and its personality pointer can be rewritten. */
    private Rec cie(Part p, EhFrame.Cie c) {
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
        return new Rec(p, c, null, null);
    }

    private Rec fde(Part p, EhFrame.Fde f) {
        int at = f.offset();
        checkFixedSize(f.cie().fdeEncoding(), at);
        long begin = f.pcBegin();
        long range = f.pcRange();
        long lsda = 0;
        if (f.lsdaField() >= 0) {
            lsda = pointer(p.frame, f, f.lsdaField(), f.cie().lsdaEncoding());
        }
        MovedFunction m = moved.find(begin);
        MovedFunction mEnd = range > 0 ? moved.find(begin + range - 1) : null;
        if (m == null && mEnd == null) {
            return new Rec(p, f, null, null);
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
            return new Rec(p, f, m, newProgram(p, f, begin, m.newStart));
        } catch (PatchException e) {
            throw new PatchException(e.reason(), e.getMessage() + " (function '" + m.function.name() + "')", m.function.address());
        }
    }

    /** Rewrites a moved function's FDE where it is: its new program fits (padded with DW_CFA_nop). */
    private void inPlace(Section eh, Rec r) {
        byte[] b = r.part.bytes;
        EhFrame.Fde f = (EhFrame.Fde) r.record;
        int enc = f.cie().fdeEncoding();
        try {
            write(b, f.pcBeginField(), enc, eh.address() + f.pcBeginField(), r.moved.newStart, f.offset());
            write(b, f.pcBeginField() + PointerEncoding.size(enc), enc & 0x0f, 0, r.moved.newSize, f.offset());
            range(eh.address() + f.pcBeginField(), enc, r.moved.newStart, r.moved.newSize);
        } catch (PatchException e) {
            throw new PatchException(e.reason(), e.getMessage() + " (function '" + r.moved.function.name() + "')", r.moved.function.address());
        }
        System.arraycopy(r.program, 0, b, f.instructions(), r.program.length);
        Arrays.fill(b, f.instructions() + r.program.length, f.end(), (byte) 0);
        movedStarts.put(f.pcBegin(), r.moved.newStart);
        rewrittenInPlace.add(new long[] {r.address(), r.part.section.address() + f.end()}); // records come in order
    }

    /**
     * The unwinder only walks forward from the registered start, so that start must not lie past
     * the skip record (the records before it, e.g. crt1.o's, are not registered and cannot grow).
     */
    private void checkRegisteredStart(Section eh, Rec first) {
        Symbol start = elf.symbol(REGISTERED_START).orElse(null);
        if (start != null && eh.contains(start.value()) && start.value() > first.address()) {
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
    private byte[] continuation(List<Rec> tail, long address) {
        ByteWriter out = new ByteWriter();
        Map<Long, Integer> cieCopies = new HashMap<>(); // by the CIE's address: the records come from two sections
        List<Rec> fdes = new ArrayList<>();
        for (Rec r : tail) {
            long base = r.part.section.address();
            EhFrame.Cie c = r.record instanceof EhFrame.Cie own ? own : ((EhFrame.Fde) r.record).cie();
            if (!cieCopies.containsKey(base + c.offset())) {
                copyCie(r.part, c, out, address, cieCopies);
            }
            if (r.record instanceof EhFrame.Fde) {
                fdes.add(r);
            }
        }
        fdes.sort(java.util.Comparator.comparingLong(Rec::newStart));
        for (Rec r : fdes) {
            copyFde(r, out, address, cieCopies.get(r.part.section.address() + ((EhFrame.Fde) r.record).cie().offset()));
        }
        out.u32(0);
        return out.toByteArray();
    }

    private void copyCie(Part p, EhFrame.Cie c, ByteWriter out, long address, Map<Long, Integer> copies) {
        int at = out.size();
        byte[] r = Arrays.copyOfRange(p.bytes, c.offset(), c.end());
        if (c.personalityField() >= 0) {
            int field = c.personalityField() - c.offset();
            long personality = pointer(p.frame, c, c.personalityField(), c.personalityEncoding());
            write(r, field, c.personalityEncoding(), address + at + field, personality, c.offset());
            pointerField(address + at + field, c.personalityEncoding(), personality);
        }
        copies.put(p.section.address() + c.offset(), at);
        out.bytes(r);
    }

    private void copyFde(Rec rec, ByteWriter out, long address, int cieCopy) {
        byte[] b = rec.part.bytes;
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
            long begin = rec.moved != null ? rec.moved.newStart : f.pcBegin();
            write(r, 8, enc, address + at + 8, begin, f.offset());
            if (rec.moved != null) {
                write(r, 8 + PointerEncoding.size(enc), enc & 0x0f, 0, rec.moved.newSize, f.offset());
                movedStarts.put(f.pcBegin(), rec.moved.newStart);
            }
            range(address + at + 8, enc, begin, rec.moved != null ? rec.moved.newSize : f.pcRange());
            if (f.lsdaField() >= 0) {
                int field = 8 + f.lsdaField() - f.pcBeginField();
                long lsda = pointer(rec.part.frame, f, f.lsdaField(), f.cie().lsdaEncoding());
                write(r, field, f.cie().lsdaEncoding(), address + at + field, lsda, f.offset());
                pointerField(address + at + field, f.cie().lsdaEncoding(), lsda);
            }
        } catch (PatchException e) {
            throw rec.moved == null ? e
                    : new PatchException(e.reason(), e.getMessage() + " (function '" + rec.moved.function.name() + "')",
                            rec.moved.function.address());
        }
        movedFdes.put(rec.address(), address + at);
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
    private byte[] newProgram(Part p, EhFrame.Fde f, long oldLoc, long newLoc) {
        byte[] b = p.bytes;
        int at = f.offset();
        long codeAlign = f.cie().codeAlignment();
        ByteWriter out = new ByteWriter();
        CfaReader cfa = p.frame.cfaReader(f);
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

    /**
     * Keeps the relocations of an FDE's pc_begin (at {@code beginField}) and pc_range: the
     * assembler's {@code ADD}/{@code SUB} pair of a label difference, end minus start.
     */
    private void range(long beginField, int enc, long begin, long size) {
        pointerField(beginField, enc, begin);
        long rangeField = beginField + PointerEncoding.size(enc);
        int width = PointerEncoding.size(enc & 0x0f);
        if (width == 4 || width == 8) {
            fields.add(new Field(rangeField, width == 4 ? RiscVRelocations.R_RISCV_ADD32 : RiscVRelocations.R_RISCV_ADD64, begin + size));
            fields.add(new Field(rangeField, width == 4 ? RiscVRelocations.R_RISCV_SUB32 : RiscVRelocations.R_RISCV_SUB64, begin));
        }
    }

    /** Keeps the relocation of a pointer field: pc-relative 32-bit or absolute; other encodings have none. */
    private void pointerField(long address, int enc, long value) {
        int width = PointerEncoding.size(enc);
        int application = enc & 0x70;
        if (application == PointerEncoding.DW_EH_PE_PCREL && width == 4) {
            fields.add(new Field(address, RiscVRelocations.R_RISCV_32_PCREL, value));
        } else if (application == PointerEncoding.DW_EH_PE_ABSPTR && (width == 4 || width == 8)) {
            fields.add(new Field(address, width == 4 ? RiscVRelocations.R_RISCV_32 : RiscVRelocations.R_RISCV_64, value));
        }
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
