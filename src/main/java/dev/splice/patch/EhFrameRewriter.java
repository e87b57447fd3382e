package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves the .eh_frame FDEs of moved functions to the new code, in place: pc_begin and pc_range
 * are rewritten, and every advance_loc of the CFA program is recomputed so that each row starts at
 * the new address of the code it described (a fragment inserted before an instruction belongs to
 * the row in force after the previous instruction). The .eh_frame_hdr search table is updated and
 * re-sorted. Anything else (a wider advance needed, DW_CFA_set_loc, an LSDA, an FDE covering only
 * part of a moved function, unknown encodings) is refused.
 */
final class EhFrameRewriter {
    private final ElfFile elf;
    private final Inserter inserter;
    private final String file;

    EhFrameRewriter(ElfFile elf, Inserter inserter) {
        this.elf = elf;
        this.inserter = inserter;
        this.file = elf.name();
    }

    private record Cie(int fdeEncoding, boolean lsda, int lsdaEncoding, long codeAlign, boolean augmented) {}

    /** Old FDE initial location -> new one, for the header table. */
    private final Map<Long, Long> movedStarts = new HashMap<>();

    void rewrite(ElfEditor editor) {
        Section eh = elf.section(".eh_frame").orElse(null);
        if (eh == null) {
            return;
        }
        byte[] b = elf.contents(eh);
        Map<Integer, Cie> cies = new HashMap<>();
        int at = 0;
        while (at + 4 <= b.length) {
            long length = u32(b, at);
            if (length == 0) {
                break;
            }
            if (length == 0xffffffffL) {
                throw refuse(at, "64-bit DWARF records are not handled");
            }
            int start = at + 4;
            int end = (int) (start + length);
            if (end > b.length || length < 4) {
                throw refuse(at, "record runs past the end of the section");
            }
            long id = u32(b, start);
            if (id == 0) {
                cies.put(at, parseCie(b, start + 4, end, at));
            } else {
                int cieAt = (int) (start - id);
                Cie cie = cies.get(cieAt);
                if (cie == null) {
                    throw refuse(at, "FDE names no CIE seen before it");
                }
                fde(b, eh, start + 4, end, cie, at);
            }
            at = end;
        }
        editor.setContents(eh.index(), b);
        rewriteHeader(editor);
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
                        int enc = b[p++] & 0xff;
                        p += size(enc, at);
                    }
                    case 'S', 'B' -> { }
                    default -> throw refuse(at, "CIE augmentation '" + c + "' is not handled");
                }
            }
        }
        return new Cie(fdeEncoding, lsda, lsdaEncoding, codeAlign, aug.startsWith("z"));
    }

    private void fde(byte[] b, Section eh, int p, int end, Cie cie, int at) {
        int enc = cie.fdeEncoding;
        int width = size(enc, at);
        long fieldAddress = eh.address() + p;
        long begin = read(b, p, enc, fieldAddress, at);
        long range = read(b, p + width, enc & 0x0f, 0, at);
        MovedFunction m = inserter.findMoved(begin);
        MovedFunction mEnd = range > 0 ? inserter.findMoved(begin + range - 1) : null;
        if (m == null && mEnd == null) {
            return;
        }
        if (m == null || m != mEnd || begin != m.function.address() || range != m.function.size()) {
            MovedFunction culprit = m != null ? m : mEnd;
            throw new PatchException(refuse(at, "FDE [0x" + Long.toHexString(begin) + ", 0x" + Long.toHexString(begin + range)
                    + ") covers moved code but not exactly one whole moved function").getMessage(), culprit.function.address());
        }
        int q = p + 2 * width;
        if (cie.augmented) {
            long[] r = uleb(b, q);
            int augEnd = (int) (r[1] + r[0]);
            if (cie.lsda) {
                long lsda = read(b, (int) r[1], cie.lsdaEncoding, eh.address() + r[1], at);
                if (lsda != 0 && !inserter.hasRelocationsFor(lsda)) {
                    throw new PatchException(file + ": function '" + m.function.name() + "' has a C++ exception table "
                            + "(LSDA at 0x" + Long.toHexString(lsda) + ") without relocations; its call-site ranges "
                            + "cannot be migrated, so it cannot move");
                }
            }
            q = augEnd;
        }
        try {
            write(b, p, enc, fieldAddress, m.newStart, at);
            write(b, p + width, enc & 0x0f, 0, m.newSize, at);
            movedStarts.put(begin, m.newStart);
            rewriteProgram(b, q, end, cie.codeAlign, begin, m.newStart, at);
        } catch (PatchException e) {
            throw new PatchException(e.getMessage() + " (function '" + m.function.name() + "')", m.function.address());
        }
    }

    /**
     * Re-encodes the CFA program with the new advances, each in the smallest form that holds it;
     * the result must fit the old program's bytes (padding with DW_CFA_nop), since .eh_frame cannot
     * grow in place.
     */
    private void rewriteProgram(byte[] b, int p, int end, long codeAlign, long oldLoc, long newLoc, int at) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(end - p);
        int start = p;
        while (p < end) {
            int op = b[p] & 0xff;
            int high = op & 0xc0;
            if (high == 0x40 || op == 0x02 || op == 0x03 || op == 0x04) {
                int width = high == 0x40 ? 0 : op == 0x02 ? 1 : op == 0x03 ? 2 : 4;
                long delta = width == 0 ? op & 0x3f : width == 1 ? b[p + 1] & 0xff : width == 2 ? u16(b, p + 1) : u32(b, p + 1);
                long oldNext = oldLoc + delta * codeAlign;
                long newNext = inserter.mapFallThrough(oldNext);
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
        byte[] program = out.toByteArray();
        if (program.length > end - start) {
            throw refuse(at, "the CFA advances grow the program to " + program.length + " bytes, and it no longer fits "
                    + "its " + (end - start) + " bytes (.eh_frame cannot grow in place)");
        }
        System.arraycopy(program, 0, b, start, program.length);
        Arrays.fill(b, start + program.length, end, (byte) 0);
    }

    private void rewriteHeader(ElfEditor editor) {
        Section hdr = elf.section(".eh_frame_hdr").orElse(null);
        if (hdr == null || movedStarts.isEmpty()) {
            return;
        }
        byte[] b = elf.contents(hdr);
        if (b.length < 12 || b[0] != 1 || (b[2] & 0xff) != 0x03 || (b[3] & 0xff) != 0x3b) {
            throw new PatchException(file + ": .eh_frame_hdr has an encoding Splice does not handle");
        }
        int p = 4 + size(b[1] & 0xff, 0);
        long count = u32(b, p);
        p += 4;
        if (p + count * 8 > b.length) {
            throw new PatchException(file + ": .eh_frame_hdr table runs past its section");
        }
        List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long loc = hdr.address() + (int) u32(b, p + 8 * i);
            long fde = (int) u32(b, p + 8 * i + 4);
            rows.add(new long[] {movedStarts.getOrDefault(loc, loc), fde});
        }
        rows.sort((x, y) -> Long.compare(x[0], y[0]));
        for (int i = 0; i < count; i++) {
            long rel = rows.get(i)[0] - hdr.address();
            if (!Rv.fits(rel, 32)) {
                throw new PatchException(file + ": .eh_frame_hdr cannot reach the moved code");
            }
            Inserter.putU32(b, p + 8 * i, (int) rel);
            Inserter.putU32(b, p + 8 * i + 4, (int) rows.get(i)[1]);
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
        long v = width == 8 ? u32(b, p) | u32(b, p + 4) << 32 : width == 4 ? u32(b, p) : u16(b, p);
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
        return new PatchException(file + ": .eh_frame+0x" + Integer.toHexString(at) + ": " + why);
    }

    private static long u32(byte[] b, int p) {
        return (b[p] & 0xffL) | (b[p + 1] & 0xffL) << 8 | (b[p + 2] & 0xffL) << 16 | (b[p + 3] & 0xffL) << 24;
    }

    private static int u16(byte[] b, int p) {
        return (b[p] & 0xff) | (b[p + 1] & 0xff) << 8;
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
