package dev.splice.patch;

import dev.splice.base.Le;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.patch.PatchException.Reason;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves the .eh_frame FDEs of moved functions to the new code: pc_begin and pc_range are
 * rewritten, and every advance_loc of the CFA program is recomputed so that each row starts at the
 * new address of the code it described (a fragment inserted before an instruction belongs to the
 * row in force after the previous instruction).
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
 * DW_CFA_set_loc, FDEs covering only part of a moved function, 64-bit records and unknown
 * encodings are refused.
 */
final class EhFrameRewriter {
    /** The continuation of .eh_frame in the new segment, when it must grow. */
    static final String SECTION = ".splice.eh_frame";
    /** The label crtbeginT.o passes to __register_frame_info: where the unwinder starts walking. */
    static final String REGISTERED_START = "__EH_FRAME_BEGIN__";
    /** A minimal CIE body after the id: version 1, augmentation "", code align 1, data align -4, RA x1. */
    private static final byte[] SKIP_BODY = {1, 0, 1, 0x7c, 1};

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

    private sealed interface Rec permits Cie, Fde {
        int at();

        int end();
    }

    /** A CIE; {@code personalityField} is the offset of its 'P' pointer (-1 without one). */
    private record Cie(int at, int end, int fdeEncoding, boolean lsda, int lsdaEncoding, long codeAlign, boolean augmented,
                       int personalityField, int personalityEncoding) implements Rec {}

    /**
     * An FDE: offsets of its pc_begin, LSDA pointer (-1 without one) and CFA program; for a moved
     * function, the function and its re-computed program.
     */
    private record Fde(int at, int end, Cie cie, int pcField, int lsdaField, int programAt, long begin, MovedFunction moved,
                       byte[] program) implements Rec {
        boolean fitsInPlace() {
            return moved == null || program.length <= end - programAt;
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
        List<Rec> records = new ArrayList<>();
        int terminator = parse(b, eh, records);
        int split = 0;
        while (split < records.size() && !(records.get(split) instanceof Fde f && !f.fitsInPlace())) {
            split++;
        }
        for (Rec r : records.subList(0, split)) {
            if (r instanceof Fde f && f.moved != null) {
                inPlace(b, eh, f);
            }
        }
        byte[] continuation = null;
        if (split < records.size()) {
            Rec first = records.get(split);
            checkRegisteredStart(eh, first);
            continuation = continuation(b, eh, records.subList(split, records.size()), continuationAddress);
            skip(b, eh, first, terminator, continuationAddress);
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

    /** Reads the records up to the zero terminator (or the section end) and returns where they stop. */
    private int parse(byte[] b, Section eh, List<Rec> records) {
        Map<Integer, Cie> cies = new HashMap<>();
        int at = 0;
        while (at + 4 <= b.length) {
            long length = Le.u32L(b, at);
            if (length == 0) {
                return at;
            }
            if (length == 0xffffffffL) {
                throw refuse(at, "64-bit DWARF records are not handled");
            }
            int start = at + 4;
            if (length < 4 || length > b.length - start) {
                throw refuse(at, "record runs past the end of the section");
            }
            int end = (int) (start + length);
            long id = Le.u32L(b, start);
            try {
                if (id == 0) {
                    Cie cie = parseCie(b, start + 4, end, at);
                    cies.put(at, cie);
                    records.add(cie);
                } else {
                    Cie cie = cies.get((int) (start - id));
                    if (cie == null) {
                        throw refuse(at, "FDE names no CIE seen before it");
                    }
                    records.add(parseFde(b, eh, start + 4, end, cie, at));
                }
            } catch (IndexOutOfBoundsException e) {
                throw refuse(at, "a field of this record runs past the end of the section");
            }
            at = end;
        }
        return at;
    }

    private Cie parseCie(byte[] b, int p, int end, int at) {
        int version = b[p++] & 0xff;
        int s = p;
        while (p < end && b[p] != 0) {
            p++;
        }
        String aug = new String(b, s, p - s, java.nio.charset.StandardCharsets.US_ASCII);
        p++;
        if (aug.contains("eh")) {
            throw refuse(at, "CIE augmentation \"eh\" is not handled");
        }
        long[] r = uleb(b, p);
        long codeAlign = r[0];
        p = (int) r[1];
        p = (int) sleb(b, p)[1];
        p = version == 1 ? p + 1 : (int) uleb(b, p)[1];
        int fdeEncoding = 0;
        boolean lsda = false;
        int lsdaEncoding = 0xff;
        int personalityField = -1;
        int personalityEncoding = 0xff;
        if (aug.startsWith("z")) {
            r = uleb(b, p);
            p = (int) r[1];
            for (char c : aug.substring(1).toCharArray()) {
                switch (c) {
                    case 'R' -> fdeEncoding = b[p++] & 0xff;
                    case 'L' -> {
                        lsda = true;
                        lsdaEncoding = b[p++] & 0xff;
                    }
                    case 'P' -> {
                        personalityEncoding = b[p++] & 0xff;
                        personalityField = p;
                        p += size(personalityEncoding, at);
                    }
                    case 'S', 'B' -> { }
                    default -> throw refuse(at, "CIE augmentation '" + c + "' is not handled");
                }
            }
        }
        if (p > end) {
            throw refuse(at, "CIE augmentation runs past the end of its record");
        }
        return new Cie(at, end, fdeEncoding, lsda, lsdaEncoding, codeAlign, aug.startsWith("z"), personalityField,
                personalityEncoding);
    }

    private Fde parseFde(byte[] b, Section eh, int p, int end, Cie cie, int at) {
        int enc = cie.fdeEncoding;
        int width = size(enc, at);
        if (p + 2 * width > end) {
            throw refuse(at, "FDE is too short for its pc_begin and pc_range");
        }
        long begin = read(b, p, enc, eh.address() + p, at);
        long range = read(b, p + width, enc & 0x0f, 0, at);
        int q = p + 2 * width;
        int lsdaField = -1;
        long lsda = 0;
        if (cie.augmented) {
            long[] r = uleb(b, q);
            if (r[0] > end - r[1]) {
                throw refuse(at, "FDE augmentation data runs past the end of its record");
            }
            if (cie.lsda && cie.lsdaEncoding != 0xff) {
                lsdaField = (int) r[1];
                lsda = read(b, lsdaField, cie.lsdaEncoding, eh.address() + lsdaField, at);
            }
            q = (int) (r[1] + r[0]);
        }
        MovedFunction m = moved.find(begin);
        MovedFunction mEnd = range > 0 ? moved.find(begin + range - 1) : null;
        if (m == null && mEnd == null) {
            return new Fde(at, end, cie, p, lsdaField, q, begin, null, null);
        }
        if (m == null || m != mEnd || begin != m.function.address() || range != m.function.size()) {
            MovedFunction culprit = m != null ? m : mEnd;
            throw new PatchException(Reason.UNWIND_INFO, refuse(at, "FDE [0x" + Long.toHexString(begin) + ", 0x" + Long.toHexString(begin + range)
                    + ") covers moved code but not exactly one whole moved function").getMessage(), culprit.function.address());
        }
        if (lsda != 0 && !relocations.appliesTo(lsda)) {
            throw new PatchException(Reason.LSDA_WITHOUT_RELOCATIONS, file + ": function '" + m.function.name() + "' has a C++ exception table "
                    + "(LSDA at 0x" + Long.toHexString(lsda) + ") without relocations; its call-site ranges "
                    + "cannot be migrated, so it cannot move");
        }
        try {
            return new Fde(at, end, cie, p, lsdaField, q, begin, m, newProgram(b, q, end, cie.codeAlign, begin, m.newStart, at));
        } catch (PatchException e) {
            throw new PatchException(e.reason(), e.getMessage() + " (function '" + m.function.name() + "')", m.function.address());
        }
    }

    /** Rewrites a moved function's FDE where it is: its new program fits (padded with DW_CFA_nop). */
    private void inPlace(byte[] b, Section eh, Fde f) {
        int enc = f.cie.fdeEncoding;
        try {
            write(b, f.pcField, enc, eh.address() + f.pcField, f.moved.newStart, f.at);
            write(b, f.pcField + size(enc, f.at), enc & 0x0f, 0, f.moved.newSize, f.at);
        } catch (PatchException e) {
            throw new PatchException(e.reason(), e.getMessage() + " (function '" + f.moved.function.name() + "')", f.moved.function.address());
        }
        System.arraycopy(f.program, 0, b, f.programAt, f.program.length);
        Arrays.fill(b, f.programAt + f.program.length, f.end, (byte) 0);
        movedStarts.put(f.begin, f.moved.newStart);
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

    /** Copies of {@code tail} for {@link #SECTION} at {@code address}, CIEs first where needed, then the terminator. */
    private byte[] continuation(byte[] b, Section eh, List<Rec> tail, long address) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Map<Integer, Integer> cieCopies = new HashMap<>();
        for (Rec r : tail) {
            if (r instanceof Cie c) {
                copyCie(b, eh, c, out, address, cieCopies);
            } else if (r instanceof Fde f) {
                if (!cieCopies.containsKey(f.cie.at)) {
                    copyCie(b, eh, f.cie, out, address, cieCopies);
                }
                copyFde(b, eh, f, out, address, cieCopies.get(f.cie.at));
            }
        }
        out.writeBytes(new byte[4]);
        return out.toByteArray();
    }

    private void copyCie(byte[] b, Section eh, Cie c, ByteArrayOutputStream out, long address, Map<Integer, Integer> copies) {
        int at = out.size();
        byte[] r = Arrays.copyOfRange(b, c.at, c.end);
        if (c.personalityField >= 0) {
            int field = c.personalityField - c.at;
            long personality = read(b, c.personalityField, c.personalityEncoding, eh.address() + c.personalityField, c.at);
            write(r, field, c.personalityEncoding, address + at + field, personality, c.at);
        }
        copies.put(c.at, at);
        out.writeBytes(r);
    }

    private void copyFde(byte[] b, Section eh, Fde f, ByteArrayOutputStream out, long address, int cieCopy) {
        int at = out.size();
        byte[] program = f.moved != null ? f.program : Arrays.copyOfRange(b, f.programAt, f.end);
        int fields = f.programAt - f.pcField;
        int size = (8 + fields + program.length + 3) & -4;
        byte[] r = new byte[size];
        Le.putU32(r, 0, size - 4);
        Le.putU32(r, 4, at + 4 - cieCopy);
        System.arraycopy(b, f.pcField, r, 8, fields);
        System.arraycopy(program, 0, r, 8 + fields, program.length);
        int enc = f.cie.fdeEncoding;
        try {
            write(r, 8, enc, address + at + 8, f.moved != null ? f.moved.newStart : f.begin, f.at);
            if (f.moved != null) {
                write(r, 8 + size(enc, f.at), enc & 0x0f, 0, f.moved.newSize, f.at);
                movedStarts.put(f.begin, f.moved.newStart);
            }
            if (f.lsdaField >= 0) {
                int field = 8 + f.lsdaField - f.pcField;
                long lsda = read(b, f.lsdaField, f.cie.lsdaEncoding, eh.address() + f.lsdaField, f.at);
                write(r, field, f.cie.lsdaEncoding, address + at + field, lsda, f.at);
            }
        } catch (PatchException e) {
            throw f.moved == null ? e
                    : new PatchException(e.reason(), e.getMessage() + " (function '" + f.moved.function.name() + "')", f.moved.function.address());
        }
        movedFdes.put(eh.address() + f.at, address + at);
        out.writeBytes(r);
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
        if (replaced.end() - at - 8 >= SKIP_BODY.length) { // else zeros: no unwinder reads a CIE that no FDE names
            System.arraycopy(SKIP_BODY, 0, b, at + 8, SKIP_BODY.length);
        }
    }

    /**
     * The CFA program re-encoded with the new advances, each in the smallest form that holds it,
     * without the DW_CFA_nop padding (the caller pads).
     */
    private byte[] newProgram(byte[] b, int p, int end, long codeAlign, long oldLoc, long newLoc, int at) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(end - p);
        while (p < end) {
            int op = b[p] & 0xff;
            int high = op & 0xc0;
            if (high == 0x40 || op == 0x02 || op == 0x03 || op == 0x04) {
                int width = high == 0x40 ? 0 : op == 0x02 ? 1 : op == 0x03 ? 2 : 4;
                long delta = width == 0 ? op & 0x3f : width == 1 ? b[p + 1] & 0xff : width == 2 ? Le.u16(b, p + 1) : Le.u32L(b, p + 1);
                long oldNext = oldLoc + delta * codeAlign;
                long newNext = moved.mapFallThrough(oldNext);
                long newDelta = newNext - newLoc;
                if (newDelta < 0 || newDelta % codeAlign != 0) {
                    throw refuse(at, "CFA row at 0x" + Long.toHexString(oldNext) + " cannot be moved");
                }
                newDelta /= codeAlign;
                if (newDelta <= 0x3f) {
                    out.write((int) (0x40 | newDelta));
                } else if (newDelta <= 0xff) {
                    out.write(0x02);
                    out.write((int) newDelta);
                } else if (newDelta <= 0xffff) {
                    out.write(0x03);
                    out.write((int) newDelta);
                    out.write((int) (newDelta >> 8));
                } else {
                    out.write(0x04);
                    for (int i = 0; i < 4; i++) {
                        out.write((int) (newDelta >> (8 * i)));
                    }
                }
                oldLoc = oldNext;
                newLoc = newNext;
                p += 1 + width;
                continue;
            }
            int from = p;
            p++;
            if (high == 0x80) {
                p = (int) uleb(b, p)[1];
            } else if (high != 0xc0) {
                switch (op) {
                    case 0x00, 0x0a, 0x0b -> { }
                    case 0x01 -> throw refuse(at, "DW_CFA_set_loc is not handled");
                    case 0x06, 0x07, 0x08, 0x0d, 0x0e, 0x2e -> p = (int) uleb(b, p)[1];
                    case 0x13 -> p = (int) sleb(b, p)[1];
                    case 0x05, 0x09, 0x0c, 0x14, 0x2f -> p = (int) uleb(b, (int) uleb(b, p)[1])[1];
                    case 0x11, 0x12, 0x15 -> p = (int) sleb(b, (int) uleb(b, p)[1])[1];
                    case 0x0f -> {
                        long[] r = uleb(b, p);
                        p = (int) (r[1] + r[0]);
                    }
                    case 0x10, 0x16 -> {
                        long[] r = uleb(b, (int) uleb(b, p)[1]);
                        p = (int) (r[1] + r[0]);
                    }
                    default -> throw refuse(at, "CFA instruction 0x" + Integer.toHexString(op) + " is not handled");
                }
            }
            if (p > end) {
                throw refuse(at, "CFA instruction runs past the end of its FDE");
            }
            if (op != 0x00) {
                out.write(b, from, p - from);
            }
        }
        return out.toByteArray();
    }

    private void rewriteHeader(ElfEditor editor) {
        Section hdr = elf.section(".eh_frame_hdr").orElse(null);
        if (hdr == null || movedStarts.isEmpty()) {
            return;
        }
        byte[] b = elf.contents(hdr);
        if (b.length < 12 || b[0] != 1 || (b[2] & 0xff) != 0x03 || (b[3] & 0xff) != 0x3b) {
            throw new PatchException(Reason.UNWIND_INFO, file + ": .eh_frame_hdr has an encoding Splice does not handle");
        }
        int p = 4 + size(b[1] & 0xff, 0);
        long count = Le.u32L(b, p);
        p += 4;
        if (p + count * 8 > b.length) {
            throw new PatchException(Reason.UNWIND_INFO, file + ": .eh_frame_hdr table runs past its section");
        }
        List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long loc = hdr.address() + (int) Le.u32L(b, p + 8 * i);
            long fde = hdr.address() + (int) Le.u32L(b, p + 8 * i + 4);
            rows.add(new long[] {movedStarts.getOrDefault(loc, loc), movedFdes.getOrDefault(fde, fde)});
        }
        rows.sort((x, y) -> Long.compare(x[0], y[0]));
        for (int i = 0; i < count; i++) {
            long rel = rows.get(i)[0] - hdr.address();
            long fdeRel = rows.get(i)[1] - hdr.address();
            if (!Rv.fits(rel, 32) || !Rv.fits(fdeRel, 32)) {
                throw new PatchException(Reason.UNWIND_INFO, file + ": .eh_frame_hdr cannot reach the moved code or its FDE");
            }
            Le.putU32(b, p + 8 * i, (int) rel);
            Le.putU32(b, p + 8 * i + 4, (int) fdeRel);
        }
        editor.setContents(hdr.index(), b);
    }

    private int size(int enc, int at) {
        if (enc == 0xff) {
            return 0;
        }
        return switch (enc & 0x0f) {
            case 0x00, 0x04, 0x0c -> 8;
            case 0x03, 0x0b -> 4;
            case 0x02, 0x0a -> 2;
            default -> throw refuse(at, "pointer encoding 0x" + Integer.toHexString(enc) + " is not handled");
        };
    }

    private long read(byte[] b, int p, int enc, long fieldAddress, int at) {
        int width = size(enc, at);
        long v = width == 8 ? Le.u32L(b, p) | Le.u32L(b, p + 4) << 32 : width == 4 ? Le.u32L(b, p) : Le.u16(b, p);
        if ((enc & 0x0f) == 0x0b) {
            v = (int) v;
        } else if ((enc & 0x0f) == 0x0a) {
            v = (short) v;
        }
        return switch (enc & 0x70) {
            case 0x00 -> v;
            case 0x10 -> fieldAddress + v;
            default -> throw refuse(at, "pointer encoding 0x" + Integer.toHexString(enc) + " is not handled");
        };
    }

    private void write(byte[] b, int p, int enc, long fieldAddress, long value, int at) {
        int width = size(enc, at);
        long v = (enc & 0x70) == 0x10 ? value - fieldAddress : value;
        boolean signed = (enc & 0x08) != 0;
        boolean ok = width == 8 || (signed ? Rv.fits(v, width * 8) : v >>> (width * 8) == 0);
        if (!ok) {
            throw refuse(at, "value 0x" + Long.toHexString(value) + " does not fit its pointer encoding");
        }
        for (int i = 0; i < width; i++) {
            b[p + i] = (byte) (v >>> (8 * i));
        }
    }

    private PatchException refuse(int at, String why) {
        return new PatchException(Reason.UNWIND_INFO, file + ": .eh_frame+0x" + Integer.toHexString(at) + ": " + why);
    }



    private static long[] uleb(byte[] b, int p) {
        long v = 0;
        int shift = 0;
        while (true) {
            int x = b[p++] & 0xff;
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
            if ((x & 0x80) == 0) {
                return new long[] {v, p};
            }
        }
    }

    private static long[] sleb(byte[] b, int p) {
        long v = 0;
        int shift = 0;
        int x;
        do {
            x = b[p++] & 0xff;
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
        } while ((x & 0x80) != 0);
        if (shift < 64 && (x & 0x40) != 0) {
            v |= -1L << shift;
        }
        return new long[] {v, p};
    }

    static byte[] copy(byte[] b) {
        return Arrays.copyOf(b, b.length);
    }
}
