package dev.splice.patch;

import static dev.splice.base.Le.le16;
import static dev.splice.base.Le.le32;
import static dev.splice.base.Le.le64;

import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Retargets the references to moved code from the code and data that stay: branches, calls and
 * pc-relative pairs, lui/lo12 pairs, absolute words and label differences (ADD/SUB pairs), each
 * found through its relocation and re-encoded for the new address, as {@link Inserter.Patch}es.
 * The instruction or word at each relocation is checked against what the relocation says first:
 * a reference Splice cannot prove it rewrites correctly is refused. Relocations inside the moved
 * code (re-encoded with it) and in .eh_frame ({@link EhFrameRewriter}) are left to others.
 */
final class ReferenceRetargeter {
    /** For where an old entry jumps and the decoding of a branch ({@link Inserter#trampolineTarget}, {@link Inserter#classify}). */
    private final Inserter inserter;
    private final MovedCode moved;
    private final String file;
    private final RelocationIndex relocations;
    private final InputImage image;
    private final Decoder decoder;
    private final List<Inserter.Patch> patches;

    ReferenceRetargeter(Inserter inserter, String file, RelocationIndex relocations, InputImage image, Decoder decoder,
                        List<Inserter.Patch> patches) {
        this.inserter = inserter;
        this.moved = inserter.moved();
        this.file = file;
        this.relocations = relocations;
        this.image = image;
        this.decoder = decoder;
        this.patches = patches;
    }

    /** Retargets every reference from outside the moved code, into {@code patches}. */
    void run() {
        Map<Long, List<Reloc>> subs = new HashMap<>();
        for (Reloc r : relocations.all()) {
            int t = r.type();
            if (t == Rel.SUB8 || t == Rel.SUB16 || t == Rel.SUB32 || t == Rel.SUB64 || t == Rel.SUB6 || t == Rel.SUB_ULEB128) {
                subs.computeIfAbsent(r.offset(), k -> new ArrayList<>(1)).add(r);
            }
        }
        for (Reloc r : relocations.all()) {
            if (moved.find(r.offset()) != null && r.target().isExecutable()) {
                continue; // re-encoded with the moved code
            }
            if (r.target().name().equals(".eh_frame")) {
                continue; // EhFrameRewriter
            }
            int type = r.type();
            if (Rel.isPcrelLo(type) || Rel.isPositionIndependent(type)) {
                continue;
            }
            boolean sub = type == Rel.SUB8 || type == Rel.SUB16 || type == Rel.SUB32 || type == Rel.SUB64
                    || type == Rel.SUB6 || type == Rel.SUB_ULEB128;
            if (sub) {
                if (moved.find(r.value()) != null && !hasAdd(r)) {
                    throw refuseReference(r, "subtracts the address of moved code without a matching add");
                }
                continue;
            }
            MovedFunction m = moved.find(r.value());
            if (m == null && (type == Rel.ADD32 || type == Rel.ADD64)) {
                m = endOfMovedFunction(r, subs);
            }
            if (m == null) {
                continue;
            }
            retarget(r, m, subs);
        }
    }

    /** The moved function whose end an ADD names while its SUB names a label inside it. */
    private MovedFunction endOfMovedFunction(Reloc add, Map<Long, List<Reloc>> subs) {
        for (Reloc s : subs.getOrDefault(add.offset(), List.of())) {
            MovedFunction m = moved.find(s.value());
            if (s.section() == add.section() && m != null && add.value() == m.function.endAddress()) {
                return m;
            }
        }
        return null;
    }

    /** The new address of the end of a moved function's original code (before any jump back). */
    private static long contentEnd(MovedFunction m) {
        Item last = m.items.get(m.items.size() - 1);
        return last.kind == Kind.FALLTHROUGH ? last.newAddress : m.newStart + m.newSize;
    }

    private boolean hasAdd(Reloc sub) {
        for (Reloc r : relocations.at(sub.offset())) {
            if (r.section() == sub.section() && (r.type() == Rel.ADD32 || r.type() == Rel.ADD64)) {
                return true;
            }
        }
        return false;
    }

    private void retarget(Reloc r, MovedFunction m, Map<Long, List<Reloc>> subs) {
        long p = r.offset();
        long to = m.contains(r.value()) ? moved.mapBranchTarget(r.value()) : r.value();
        switch (r.type()) {
            case Rel.R64 -> {
                requireWord(r, u64At(p, r), r.value(), 8);
                patches.add(new Inserter.Patch(p, le64(to)));
            }
            case Rel.R32 -> {
                requireWord(r, u32At(p, r), r.value() & 0xffffffffL, 4);
                if (to >>> 32 != 0) {
                    throw refuseReference(r, "cannot hold the new address 0x" + Long.toHexString(to));
                }
                patches.add(new Inserter.Patch(p, le32((int) to)));
            }
            case Rel.ADD32, Rel.ADD64 -> {
                List<Reloc> pair = subs.getOrDefault(p, List.of());
                Reloc sub = null;
                for (Reloc s : pair) {
                    if (s.section() == r.section()) {
                        sub = s;
                    }
                }
                if (sub == null || (sub.type() == Rel.SUB32) != (r.type() == Rel.ADD32)) {
                    throw refuseReference(r, "has no matching subtraction (a label difference is expected)");
                }
                long oldValue = r.value() - sub.value();
                // A label at the end of the moved function (e.g. the end of a call-site range) maps to the copy's end.
                MovedFunction subIn = moved.find(sub.value());
                long addTo = to;
                if (subIn != null && r.value() == subIn.function.endAddress()) {
                    addTo = contentEnd(subIn);
                }
                // A moved function's start as the subtrahend is its new start (the FDE's pc_begin, the
                // base of LSDA offsets), whatever the insertion policy there.
                long subTo = subIn != null && sub.value() == subIn.function.address() ? subIn.newStart
                        : moved.mapBranchTarget(sub.value());
                long newValue = addTo - subTo;
                if (r.type() == Rel.ADD32) {
                    requireWord(r, u32At(p, r), oldValue & 0xffffffffL, 4);
                    if (!Rv.fits(newValue, 32)) {
                        throw refuseReference(r, "label difference no longer fits 32 bits");
                    }
                    patches.add(new Inserter.Patch(p, le32((int) newValue)));
                } else {
                    requireWord(r, u64At(p, r), oldValue, 8);
                    patches.add(new Inserter.Patch(p, le64(newValue)));
                }
            }
            case Rel.JAL, Rel.BRANCH, Rel.RVC_BRANCH, Rel.RVC_JUMP -> retargetBranch(r, m, to);
            case Rel.CALL, Rel.CALL_PLT, Rel.PCREL_HI20 -> retargetPair(r, to);
            case Rel.HI20, Rel.LO12_I, Rel.LO12_S -> retargetAbsolute(r, to);
            case Rel.GOT_HI20 -> {
                // The GOT slot holds the old entry address, where the jump to the moved copy now is.
                if (r.value() != m.function.address()) {
                    throw refuseReference(r, "loads a GOT slot holding an address inside moved code");
                }
            }
            default -> throw refuseReference(r, "refers to moved code; this relocation type is not handled");
        }
    }

    private void retargetBranch(Reloc r, MovedFunction m, long to) {
        long p = r.offset();
        long off = image.fileOffset(p);
        int parcel = image.u16(off);
        int size = Decoder.length(parcel);
        int bits = size == 2 ? parcel : (int) image.u32(off);
        Opcode op = decoder.decode(bits, size);
        if (op == null || !op.hasBranchTarget() || p + op.branchOffset(bits) != r.value()) {
            throw refuseReference(r, "does not match the instruction there");
        }
        Item i = inserter.classify(op, bits, size, p);
        long offset = to - p;
        boolean fits = size == 2 ? Rv.fits(offset, i.kind == Kind.BRANCH ? 9 : 12)
                : Rv.fits(offset, i.kind == Kind.BRANCH ? 13 : 21);
        if (!fits) {
            if (r.value() == m.function.address() && to == inserter.trampolineTarget(m)) {
                return; // the jump at the old entry leads to the same place
            }
            throw new PatchException(refuseReference(r, "cannot reach the new address 0x" + Long.toHexString(to)
                    + " of its target" + (r.value() == m.function.address() ? ", and the old entry cannot serve it: code before '"
                    + m.function.name() + "' may fall through into it, so the old entry must run the fragment" : ""))
                    .getMessage(), m.function.address());
        }
        byte[] b;
        if (i.kind == Kind.BRANCH) {
            b = size == 2 ? le16(Rv.encode(i.branch.equals("beq") ? "c.beqz" : "c.bnez", i.rs1, offset))
                    : le32(Rv.encode(i.branch, i.rs1, i.rs2, offset));
        } else {
            b = size == 2 ? le16(Rv.encode("c.j", offset)) : le32(Rv.encode("jal", i.rd, offset));
        }
        patches.add(new Inserter.Patch(p, b));
    }

    /** lui %hi(sym) and its %lo(sym) users: each carries its own relocation, re-encoded for the new address. */
    private void retargetAbsolute(Reloc r, long to) {
        long p = r.offset();
        int bits = (int) image.u32(image.fileOffset(p));
        long old = r.value();
        long oldHi = (old + 0x800) >> 12;
        long newHi = (to + 0x800) >> 12;
        int patched;
        if (r.type() == Rel.HI20) {
            if ((bits & 0x7f) != 0x37 || Rv.uImm(bits) != (oldHi << 12 << 32 >> 32)) {
                throw refuseReference(r, "is not on a lui of the symbol's high part");
            }
            if (!Rv.fits(newHi, 20)) {
                throw refuseReference(r, "cannot hold the new address 0x" + Long.toHexString(to));
            }
            patched = Rv.withUImm(bits, newHi);
        } else {
            boolean store = r.type() == Rel.LO12_S;
            long lo = store ? Rv.sImm(bits) : Rv.iImm(bits);
            if (lo != old - (oldHi << 12)) {
                throw refuseReference(r, "does not hold the symbol's low part");
            }
            long newLo = to - (newHi << 12);
            patched = store ? Rv.withSImm(bits, newLo) : Rv.withIImm(bits, newLo);
        }
        patches.add(new Inserter.Patch(p, le32(patched)));
    }

    private void retargetPair(Reloc r, long to) {
        long p = r.offset();
        int auipc = (int) image.u32(image.fileOffset(p));
        if ((auipc & 0x7f) != 0x17) {
            throw refuseReference(r, "is not on an auipc");
        }
        int rd = Rv.rd(auipc);
        List<long[]> partners = new ArrayList<>(); // address, store
        if (r.type() == Rel.PCREL_HI20) {
            for (Reloc lo : relocations.lowParts(p)) {
                partners.add(new long[] {lo.offset(), lo.type() == Rel.PCREL_LO12_S ? 1 : 0});
            }
        } else {
            partners.add(new long[] {p + 4, 0});
        }
        if (partners.isEmpty()) {
            throw refuseReference(r, "has no instruction completing the pair");
        }
        long hi = Rv.hi20(to - p);
        patches.add(new Inserter.Patch(p, le32(Rv.withUImm(auipc, hi))));
        for (long[] q : partners) {
            int bits = (int) image.u32(image.fileOffset(q[0]));
            long low = q[1] == 1 ? Rv.sImm(bits) : Rv.iImm(bits);
            if (p + Rv.uImm(auipc) + low != r.value() || Rv.rs1(bits) != rd) {
                throw refuseReference(r, "does not match the instructions at 0x" + Long.toHexString(p) + " and 0x"
                        + Long.toHexString(q[0]));
            }
            if (moved.find(q[0]) != null) {
                throw refuseReference(r, "is completed inside moved code");
            }
            long lo = to - p - (hi << 12);
            patches.add(new Inserter.Patch(q[0], le32(q[1] == 1 ? Rv.withSImm(bits, lo) : Rv.withIImm(bits, lo))));
        }
    }

    private void requireWord(Reloc r, long actual, long expected, int size) {
        if (actual != expected) {
            throw refuseReference(r, "holds 0x" + Long.toHexString(actual) + " where the relocation says 0x"
                    + Long.toHexString(expected) + " (" + size + " bytes); the data was changed after linking");
        }
    }

    private PatchException refuseReference(Reloc r, String why) {
        return new PatchException(file + ": " + Rel.name(r.type()) + " at 0x" + Long.toHexString(r.offset()) + " in "
                + r.target().name() + " (symbol '" + r.symbolName() + "'" + (r.relocation().addend() != 0
                ? " + " + r.relocation().addend() : "") + ") " + why);
    }

    private long u32At(long address, Reloc r) {
        return image.u32(fileOffsetOf(address, r));
    }

    private long u64At(long address, Reloc r) {
        long o = fileOffsetOf(address, r);
        return image.u32(o) | image.u32(o + 4) << 32;
    }

    private long fileOffsetOf(long address, Reloc r) {
        if (r.target().isNobits()) {
            throw refuseReference(r, "applies to a section without file contents");
        }
        return image.fileOffset(address);
    }
}
