package dev.splice.patch;

import static dev.splice.base.Le.putU32;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Opcode;
import dev.splice.listing.Assembler;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.MovedFunction.Partner;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Insertion, the BOLT way: every function that receives a fragment moves whole to a new code
 * section {@code .splice.text} in a new executable PT_LOAD segment; its original entry jumps to the
 * new copy; every reference known from the relocations that {@code --emit-relocs} kept is
 * retargeted; pc-relative code in the moved functions is re-encoded (with branch relaxation); the
 * symbols, the .eh_frame FDEs (and .eh_frame_hdr) follow; a .note.bolt_bat maps the new code back.
 * Whatever Splice cannot prove correct is refused with a {@link PatchException}. See docs/patch.md.
 *
 * <p>This class decodes the moved functions, lays out the new section and assembles the output;
 * the other passes have their own classes: {@link RelocationIndex}, {@link MovedCode},
 * {@link FragmentAssembler}, {@link NewSectionEncoder}, {@link ReferenceRetargeter},
 * {@link EhFrameRewriter} and {@link BatBuilder}.
 */
public final class Inserter {
    public static final String SECTION = ".splice.text";
    private static final int PT_RISCV_ATTRIBUTES = 0x70000003;

    private final ElfFile elf;
    private final String file;
    private final BinaryTarget target;
    /** Set last in bulk mode, where it is made on the other core ({@link #insertAtEntries}). */
    private Decoder decoder;
    private final MovedCode moved;
    private final java.util.Set<Long> functionStarts = new java.util.HashSet<>();
    /** Null until {@link #readRelocations}. */
    private RelocationIndex relocations;
    /** Bulk mode: the functions {@link #movable} decoded, for the first attempt to take over ({@link #reuse}). */
    private final Map<Long, MovedFunction> predecoded = new HashMap<>();
    private final InputImage image;
    private final List<Patch> patches = new ArrayList<>();
    /** Made with the decoder, when the first rewrite starts; copied for another attempt. */
    private FragmentAssembler fragments;

    /** What the other core makes during a rewrite: the BAT note, the build-id hash begun over the new code. */
    private record SideWork(byte[] bat, java.security.MessageDigest codeHash) {}

    /** Bytes to write at an address of the input image (outside the moved functions' new copies). */
    record Patch(long address, byte[] bytes) {}

    private Inserter(ElfFile elf) {
        this(elf, true);
    }

    private Inserter(ElfFile elf, boolean decoderNow) {
        this.elf = elf;
        this.file = elf.name();
        this.moved = new MovedCode(file);
        this.target = BinaryTarget.of(elf);
        this.decoder = decoderNow ? Rv.ISA.decoder(decodable(target)) : null;
        this.image = new InputImage(elf);
        for (Function f : elf.functions()) {
            functionStarts.add(f.address());
        }
    }

    private static java.util.Set<Extension> decodable(BinaryTarget target) {
        return target.extensions().contains(Extension.C) ? Extension.all()
                : java.util.EnumSet.complementOf(java.util.EnumSet.of(Extension.C));
    }

    /** A fresh inserter for another attempt, sharing what does not depend on the insertions. */
    private Inserter(Inserter prepared) {
        this.elf = prepared.elf;
        this.file = prepared.file;
        this.moved = new MovedCode(file);
        this.target = prepared.target;
        this.decoder = prepared.decoder;
        this.image = prepared.image;
        functionStarts.addAll(prepared.functionStarts);
        relocations = prepared.relocations;
        fragments = prepared.fragments == null ? null : prepared.fragments.copy();
    }

    /** The result of {@link #insertAtEntries}: the binary, the number of entries instrumented, the functions left alone and why. */
    public record Bulk(byte[] bytes, int entries, Map<String, String> skipped) {}

    /**
     * Bulk instrumentation: {@code explicit} plus {@code fragment} at the entry of every function
     * that can move ({@link #movableEntries}). A function that a later stage refuses is left alone
     * and the rewrite retried without it. The binary is read and its relocations indexed once.
     */
    public static Bulk insertAtEntries(ElfFile elf, List<Insertion> explicit, String fragment, String fragmentName,
                                       BranchTarget policy) {
        Phases.mark("start");
        Map<String, String> skipped = new TreeMap<>();
        // The ISA tables and the assembler load on the other core while this one parses the symbols and
        // relocations (cached by elf). Assembling the fragment here only warms the assembler up: the
        // rewrite assembles and checks it again, and reports what is wrong with it.
        Background<Decoder> isa = Background.start("isa", () -> {
            Decoder d = Rv.ISA.decoder(decodable(BinaryTarget.of(elf)));
            try {
                Assembler.assemble(fragment, fragmentName, 0L, Map.of());
            } catch (RuntimeException e) {
                // reported by the rewrite
            }
            return d;
        });
        Inserter prepared = new Inserter(elf, false);
        prepared.readRelocations();
        prepared.decoder = isa.join();
        Phases.mark("prepare");
        java.util.Set<Long> entries = new java.util.TreeSet<>(prepared.movable(skipped));
        for (int attempt = 0; ; attempt++) {
            List<Insertion> all = new ArrayList<>(explicit);
            for (long a : entries) {
                all.add(new Insertion(a, fragment, fragmentName, policy));
            }
            try {
                byte[] out = all.isEmpty() ? elf.toBytes() : (attempt == 0 ? prepared : new Inserter(prepared)).run(all);
                return new Bulk(out, entries.size(), skipped);
            } catch (PatchException e) {
                long f = e.functionAddress();
                if (f < 0 || !entries.remove(f) || attempt > 1000) {
                    throw e;
                }
                skipped.put("0x" + Long.toHexString(f), e.getMessage());
            }
        }
    }

    /**
     * Loads the ISA tables, the decoder for rv64gc and the assembler on another thread, so that a
     * rewrite starting soon (after the CLI has parsed its arguments) finds them ready. A start-up
     * optimization only: nothing observable depends on it.
     */
    public static void warmUp() {
        Background.start("warm-up", () -> {
            Rv.ISA.decoder(Extension.all());
            BuildIds.sha256().digest(); // the security providers load slowly on first use
            try {
                Assembler.assemble("addi x0, x0, 0\n", "warm-up", 0L, Map.of());
            } catch (RuntimeException e) {
                // cannot happen for this text; a warm-up never fails the command
            }
            return null;
        });
    }

    /** The binary with the fragments inserted. */
    public static byte[] insert(ElfFile elf, List<Insertion> insertions) {
        if (insertions.isEmpty()) {
            return elf.toBytes();
        }
        return new Inserter(elf).run(insertions);
    }

    private byte[] run(List<Insertion> insertions) {
        if (!elf.isRiscV() || elf.header().elfClass() != 2) {
            throw new PatchException(file + ": insertion needs a RISC-V64 ELF file");
        }
        if (elf.section(SECTION).isPresent()) {
            throw new PatchException(file + ": already rewritten by Splice (has " + SECTION
                    + "); its relocations describe the input, so insert into the original binary in one run");
        }
        if (elf.header().type() != 2) {
            throw new PatchException(file + ": insertion supports static executables (ET_EXEC) only, this is e_type "
                    + elf.header().type());
        }
        for (Section s : elf.sections()) {
            if (s.type() == Section.SHT_DYNAMIC) {
                throw new PatchException(file + ": dynamically linked executables are not handled (section "
                        + s.name() + "); link with -static");
            }
        }
        readRelocations();
        for (Insertion insertion : insertions) {
            claim(insertion);
        }
        for (MovedFunction m : moved.functions()) {
            decode(m);
        }
        for (MovedFunction m : moved.functions()) {
            checkInsertionPoints(m);
        }
        Phases.mark("decode moved functions");
        ElfEditor editor = elf.edit();
        long base = newSectionAddress(editor);
        if (fragments == null) {
            fragments = new FragmentAssembler(target, decoder);
        }
        layout(base);
        Phases.mark("layout");
        byte[] text = new NewSectionEncoder(moved, file, fragments).encode(base);
        Phases.mark("encode");
        // The BAT and the build-id hash of the new code depend only on the layout: the other core makes them.
        byte[] oldId = elf.buildId().orElse(null);
        Background<SideWork> side = Background.start("bat", () -> new SideWork(new BatBuilder(elf, this).encode(),
                oldId == null ? null : BuildIds.start(oldId, text)));
        new ReferenceRetargeter(this, file, relocations, image, decoder, patches).run();
        writeTrampolines();
        Phases.mark("retarget references");
        for (Patch p : patches) {
            editor.patch(image.fileOffset(p.address()), p.bytes());
        }
        int textIndex = editor.addSection(SECTION, Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR, base,
                8, 0, 0, 0, text);
        // .eh_frame's continuation, when an FDE must grow, follows the code in the same segment.
        long framesAddress = (base + text.length + 7) & -8;
        byte[] frames = new EhFrameRewriter(elf, this).rewrite(editor, framesAddress);
        int[] newSections = frames == null ? new int[] {textIndex} : new int[] {textIndex,
                editor.addSection(EhFrameRewriter.SECTION, Section.SHT_PROGBITS, Section.SHF_ALLOC, framesAddress, 8, 0, 0, 0, frames)};
        editor.bindSegment(spareProgramHeader(editor), newSections);
        moveEntry(editor);
        moveSymbols(editor, textIndex);
        Phases.mark("eh_frame, symbols");
        editor.addSection(".note.bolt_bat", Section.SHT_NOTE, 0, 0, 4, 0, 0, 0, side.join().bat());
        Phases.mark("BAT");
        if (oldId != null) {
            editor.setBuildId(BuildIds.finish(side.join().codeHash(), oldId.length, patchBytes()));
        }
        Phases.mark("build-id");
        byte[] out = editor.toBytes();
        Phases.mark("ELF bytes");
        return out;
    }

    // ------------------------------------------------------------------ relocations

    private void readRelocations() {
        if (relocations == null) {
            relocations = RelocationIndex.read(elf, file);
        }
    }

    /** True if a relocation section applies to the section holding {@code address}. */
    boolean hasRelocationsFor(long address) {
        for (RelocationSection rs : elf.relocations()) {
            if (rs.target().index() != 0 && rs.target().contains(address)) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ functions and decoding

    private void claim(Insertion insertion) {
        long a = insertion.address();
        Function f = elf.functionContaining(a).orElseThrow(() -> new PatchException(insertion.fragmentName()
                + ": address 0x" + Long.toHexString(a) + " is not inside a function of " + file));
        if (f.section() == null || !f.section().isExecutable() || f.section().isNobits()) {
            throw new PatchException(insertion.fragmentName() + ": function '" + f.name() + "' is not in a code section");
        }
        MovedFunction m = moved.add(f);
        if (m.function.size() != f.size()) {
            throw new PatchException(insertion.fragmentName() + ": functions overlap at 0x" + Long.toHexString(f.address()));
        }
        Item frag = m.fragments.get(a);
        if (frag == null) {
            frag = new Item(Kind.FRAGMENT, a, 0);
            frag.policy = insertion.branchTarget();
            m.fragments.put(a, frag);
        } else if (frag.policy != insertion.branchTarget()) {
            throw new PatchException(insertion.fragmentName() + ": insertions at 0x" + Long.toHexString(a)
                    + " disagree on the branch target policy (" + frag.policy + " and " + insertion.branchTarget()
                    + "); insertions at one address form one fragment");
        }
        frag.addInsertion(insertion);
    }

    private void decode(MovedFunction m) {
        Function f = m.function;
        MovedFunction next = moved.after(f.address());
        if (next != null && next.function.address() < f.endAddress()) {
            throw new PatchException(file + ": functions '" + f.name() + "' and '" + next.function.name() + "' overlap");
        }
        if (f.size() < 4) {
            throw new PatchException(file + ": function '" + f.name() + "' has " + f.size()
                    + " bytes, too few for the jump to its moved copy");
        }
        MovedFunction known = predecoded.isEmpty() ? null : predecoded.remove(f.address());
        if (known != null && known.function.size() == f.size() && m.items.isEmpty()) {
            reuse(m, known);
            return;
        }
        long at = f.address();
        long offset = image.fileOffset(at);
        Item single = m.fragments.size() == 1 ? m.fragments.values().iterator().next() : null; // the usual case, unboxed
        while (at < f.endAddress()) {
            int parcel = image.u16(offset + (at - f.address()));
            int size = Decoder.length(parcel);
            if (size != 2 && size != 4 || at + size > f.endAddress()) {
                throw new PatchException(file + ": function '" + f.name() + "' holds bytes at 0x" + Long.toHexString(at)
                        + " that are not an instruction; data in code is not moved");
            }
            int bits = size == 2 ? parcel : (int) image.u32(offset + (at - f.address()));
            Opcode op = decoder.decode(bits, size);
            if (op == null) {
                throw new PatchException(file + ": function '" + f.name() + "': 0x" + Long.toHexString(at)
                        + " holds no valid instruction of " + target.source() + "; data in code is not moved");
            }
            Item item = classify(op, bits, size, at);
            Item frag = single != null ? (at == single.oldAddress ? single : null)
                    : m.fragments.isEmpty() ? null : m.fragments.get(at);
            if (frag != null) {
                m.items.add(frag);
                item.fragment = frag;
            }
            m.items.add(item);
            m.instructions.put(at, item);
            at += size;
        }
        for (Map.Entry<Long, Item> e : m.fragments.entrySet()) {
            if (!m.instructions.containsKey(e.getKey())) {
                throw new PatchException(e.getValue().insertions.get(0).fragmentName() + ": 0x"
                        + Long.toHexString(e.getKey()) + " is not an instruction boundary of function '" + f.name() + "'");
            }
        }
        Item last = m.items.get(m.items.size() - 1);
        if (canFallThrough(last) && f.endAddress() >= f.section().endAddress()) {
            // Nothing follows in the code section: the copy traps (unimp) where the original would run off its section.
            Item trap = new Item(Kind.PLAIN, f.endAddress(), 4);
            trap.bits = 0;
            m.items.add(trap);
        } else if (canFallThrough(last)) {
            Item back = new Item(Kind.FALLTHROUGH, f.endAddress(), 4);
            back.rd = 0;
            back.target = f.endAddress();
            back.form = 1;
            back.afterCall = last.kind == Kind.JUMP && last.rd == 1
                    || last.oldSize == 4 && (last.bits & 0x7f) == 0x67 && Rv.rd(last.bits) == 1
                    || last.oldSize == 2 && (last.bits & 0xf07f) == 0x9002 && ((last.bits >> 7) & 31) != 0;
            m.items.add(back);
        }
        checkRelocationsInside(m);
    }

    /**
     * {@link #decode} for a function that {@link #movable} decoded already (bulk mode): the same
     * items with the fragments woven in. Of the checks, only those that depend on which functions
     * move run again; the others passed when it was decoded.
     */
    private void reuse(MovedFunction m, MovedFunction known) {
        Function f = m.function;
        Item single = m.fragments.size() == 1 ? m.fragments.values().iterator().next() : null;
        for (Item item : known.items) {
            if (known.instructions.get(item.oldAddress) == item) {
                Item frag = single != null ? (item.oldAddress == single.oldAddress ? single : null)
                        : m.fragments.isEmpty() ? null : m.fragments.get(item.oldAddress);
                if (frag != null) {
                    m.items.add(frag);
                    item.fragment = frag;
                }
                m.instructions.put(item.oldAddress, item);
            }
            m.items.add(item);
        }
        for (Map.Entry<Long, Item> e : m.fragments.entrySet()) {
            if (!m.instructions.containsKey(e.getKey())) {
                throw new PatchException(e.getValue().insertions.get(0).fragmentName() + ": 0x"
                        + Long.toHexString(e.getKey()) + " is not an instruction boundary of function '" + f.name() + "'");
            }
        }
        int k = relocations.firstAt(f.address());
        for (Item item : m.instructions.values()) {
            while (k < relocations.size() && relocations.offset(k) < item.oldAddress) {
                k++;
            }
            for (; k < relocations.size() && relocations.offset(k) == item.oldAddress; k++) {
                Reloc r = relocations.get(k);
                int type = r.type();
                if ((type == Rel.HI20 || type == Rel.LO12_I || type == Rel.LO12_S) && moved.find(r.value()) != null) {
                    throw refuse(item, r, "takes the absolute address of moved code (lui-based); not handled");
                }
            }
        }
    }

    private static boolean canFallThrough(Item last) {
        if (last.kind == Kind.JUMP && last.rd == 0) {
            return false;
        }
        // jalr x0 (ret, jr), c.jr
        if (last.oldSize == 4 && (last.bits & 0x7f) == 0x67 && Rv.rd(last.bits) == 0) {
            return false;
        }
        return !(last.oldSize == 2 && (last.bits & 0xf07f) == 0x8002 && ((last.bits >> 7) & 31) != 0);
    }

    Item classify(Opcode op, int bits, int size, long at) {
        String name = op.mnemonic();
        Item item;
        if (op.hasBranchTarget()) {
            long t = at + op.branchOffset(bits);
            switch (name) {
                case "beq", "bne", "blt", "bge", "bltu", "bgeu" -> {
                    item = new Item(Kind.BRANCH, at, size);
                    item.branch = name;
                    item.rs1 = Rv.rs1(bits);
                    item.rs2 = Rv.rs2(bits);
                    item.form = 1;
                }
                case "c.beqz", "c.bnez" -> {
                    item = new Item(Kind.BRANCH, at, size);
                    item.branch = name.equals("c.beqz") ? "beq" : "bne";
                    item.rs1 = 8 + ((bits >>> 7) & 7);
                    item.rs2 = 0;
                }
                case "jal" -> {
                    item = new Item(Kind.JUMP, at, size);
                    item.rd = Rv.rd(bits);
                    item.form = 1;
                }
                case "c.j" -> {
                    item = new Item(Kind.JUMP, at, size);
                    item.rd = 0;
                }
                default -> throw new PatchException(file + ": 0x" + Long.toHexString(at) + ": pc-relative instruction "
                        + name + " is not handled");
            }
            item.target = t;
        } else if (name.equals("auipc")) {
            item = new Item(Kind.AUIPC, at, size);
            item.rd = Rv.rd(bits);
        } else {
            item = new Item(Kind.PLAIN, at, size);
        }
        item.bits = bits;
        return item;
    }

    /** Pairs every auipc with the instructions that complete it; refuses relocations it cannot follow. */
    private void checkRelocationsInside(MovedFunction m) {
        Function f = m.function;
        int k = relocations.firstAt(f.address());
        for (Item item : m.instructions.values()) {
            while (k < relocations.size() && relocations.offset(k) < item.oldAddress) {
                k++;
            }
            boolean hi = false;
            for (; k < relocations.size() && relocations.offset(k) == item.oldAddress; k++) {
                Reloc r = relocations.get(k);
                int type = r.type();
                if (Rel.isPositionIndependent(type) || Rel.isPcrelLo(type)) {
                    continue;
                }
                switch (type) {
                    case Rel.BRANCH, Rel.RVC_BRANCH, Rel.JAL, Rel.RVC_JUMP -> {
                        if (item.kind != Kind.BRANCH && item.kind != Kind.JUMP || item.target != r.value()) {
                            throw refuse(item, r, "does not match the instruction");
                        }
                    }
                    case Rel.CALL, Rel.CALL_PLT -> {
                        Item jalr = m.instructions.get(item.oldAddress + 4);
                        if (item.kind != Kind.AUIPC || jalr == null || jalr.oldSize != 4 || (jalr.bits & 0x707f) != 0x67
                                || Rv.rs1(jalr.bits) != item.rd) {
                            throw refuse(item, r, "is not on an auipc followed by its jalr");
                        }
                        long t = item.oldAddress + Rv.uImm(item.bits) + Rv.iImm(jalr.bits);
                        item.addPartner(new Partner(jalr, false, t));
                        hi = true;
                    }
                    case Rel.PCREL_HI20, Rel.GOT_HI20, Rel.TLS_GOT_HI20, Rel.TLS_GD_HI20 -> {
                        if (item.kind != Kind.AUIPC) {
                            throw refuse(item, r, "is not on an auipc");
                        }
                        for (Reloc lo : relocations.lowParts(item.oldAddress)) {
                            Item p = m.instructions.get(lo.offset());
                            if (p == null || p.oldSize != 4) {
                                throw new PatchException(file + ": the low part of the auipc at 0x"
                                        + Long.toHexString(item.oldAddress) + " (" + Rel.name(lo.type()) + " at 0x"
                                        + Long.toHexString(lo.offset()) + ") is not an instruction of function '" + f.name() + "'");
                            }
                            boolean store = lo.type() == Rel.PCREL_LO12_S;
                            long low = store ? Rv.sImm(p.bits) : Rv.iImm(p.bits);
                            item.addPartner(new Partner(p, store, item.oldAddress + Rv.uImm(item.bits) + low));
                        }
                        if (item.partners.isEmpty()) {
                            throw refuse(item, r, "has no instruction completing the pair (no R_RISCV_PCREL_LO12 naming it)");
                        }
                        hi = true;
                    }
                    case Rel.HI20, Rel.LO12_I, Rel.LO12_S -> {
                        if (moved.find(r.value()) != null) {
                            throw refuse(item, r, "takes the absolute address of moved code (lui-based); not handled");
                        }
                    }
                    default -> throw refuse(item, r, "is not handled in moved code");
                }
            }
            if (item.kind == Kind.AUIPC && !hi) {
                throw new PatchException(file + ": auipc at 0x" + Long.toHexString(item.oldAddress) + " in function '"
                        + f.name() + "' has no R_RISCV_PCREL_HI20/CALL/GOT_HI20 relocation: its use of the pc is unknown, "
                        + "so the function cannot move");
            }
        }
    }

    private PatchException refuse(Item item, Reloc r, String why) {
        return new PatchException(file + ": " + Rel.name(r.type()) + " at 0x" + Long.toHexString(item.oldAddress)
                + " (symbol '" + r.symbolName() + "') " + why);
    }

    /**
     * The sequences that must stay together: nothing may be inserted after an auipc and up to the
     * last instruction completing its pc-relative pair, nor after an lr and up to its sc.
     */
    private void checkInsertionPoints(MovedFunction m) {
        for (Item frag : m.fragments.values()) {
            String why = whyNot(m, frag.oldAddress);
            if (why != null) {
                throw new PatchException(frag.insertions.get(0).fragmentName() + ": " + why);
            }
        }
    }

    /** Why nothing may be inserted at {@code a} in {@code m}, or null when it may. */
    private String whyNot(MovedFunction m, long a) {
        for (Item item : m.instructions.values()) {
            if (item.kind == Kind.AUIPC) {
                long last = item.oldAddress;
                for (Partner p : item.partners) {
                    last = Math.max(last, p.item().oldAddress);
                }
                if (a > item.oldAddress && a <= last) {
                    return "0x" + Long.toHexString(a) + " lies inside the pc-relative pair from the auipc at 0x"
                            + Long.toHexString(item.oldAddress) + " to 0x" + Long.toHexString(last) + " in function '"
                            + m.function.name() + "': insert before the auipc or after the pair";
                }
            }
            if (isLoadReserved(item)) {
                long sc = -1;
                for (long b = item.oldAddress + item.oldSize; m.instructions.containsKey(b) && b - item.oldAddress <= 64;
                        b += m.instructions.get(b).oldSize) {
                    if (isStoreConditional(m.instructions.get(b))) {
                        sc = b;
                        break;
                    }
                }
                if (a > item.oldAddress && (sc < 0 ? a <= item.oldAddress + 64 : a <= sc)) {
                    return "0x" + Long.toHexString(a) + " lies inside the lr/sc sequence starting at 0x"
                            + Long.toHexString(item.oldAddress) + " in function '" + m.function.name()
                            + "': code between them may break the reservation forever";
                }
            }
        }
        return null;
    }

    /**
     * The entries of every function that can move on its own (decoded, relocations understood, no
     * FDE trouble), for bulk instrumentation; {@code skipped} receives the others with the reason.
     */
    public static List<Long> movableEntries(ElfFile elf, Map<String, String> skipped) {
        return new Inserter(elf).movable(skipped);
    }

    private List<Long> movable(Map<String, String> skipped) {
        readRelocations();
        Phases.mark("relocations");
        List<Function> functions = elf.functions();
        moved.find(0); // builds the (empty) index of moved functions before two threads read it
        // Two halves on two cores; decoding a function reads only what no longer changes. The halves'
        // findings are merged in order, as one pass would make them (a failure of the first half wins).
        int half = functions.size() / 2;
        Background<Movable> second = Background.start("decode", () -> movable(functions.subList(half, functions.size())));
        Movable first = movable(functions.subList(0, half));
        Movable rest = second.join();
        List<Long> out = new ArrayList<>();
        for (Movable part : List.of(first, rest)) {
            for (MovedFunction m : part.decoded()) {
                out.add(m.function.address());
                predecoded.put(m.function.address(), m);
            }
            skipped.putAll(part.skipped());
        }
        Phases.mark("find movable functions");
        return out;
    }

    /** What {@link #movable} finds in some of the functions: those that can move, decoded, and the others with the reason. */
    private record Movable(List<MovedFunction> decoded, Map<String, String> skipped) {}

    private Movable movable(List<Function> functions) {
        Inserter in = this;
        List<MovedFunction> decoded = new ArrayList<>();
        Map<String, String> skipped = new TreeMap<>();
        for (Function f : functions) {
            if (f.section() == null || !f.section().isExecutable() || f.section().isNobits() || f.size() <= 0) {
                continue;
            }
            MovedFunction m = new MovedFunction(f);
            try {
                in.decode(m);
                if (f.size() < 8) {
                    throw new PatchException(f.name() + ": " + f.size() + " bytes may be too few for the jump to a far copy");
                }
                Item end = m.items.get(m.items.size() - 1);
                if (end.kind == Kind.FALLTHROUGH && !end.afterCall) {
                    throw new PatchException(f.name() + ": falls through into the code after it, and the jump back may not reach");
                }
                String why = in.whyNot(m, f.address());
                if (why != null) {
                    throw new PatchException(why);
                }
                decoded.add(m);
            } catch (PatchException e) {
                skipped.put(f.name() + "@0x" + Long.toHexString(f.address()), e.getMessage());
            }
        }
        return new Movable(decoded, skipped);
    }

    /**
     * The instruction boundaries of {@code f} where an insertion is accepted (the function itself
     * can move: its code and relocations are understood). Throws the refusal when it cannot move.
     */
    public static List<Long> insertionPoints(ElfFile elf, Function f) {
        Inserter in = new Inserter(elf);
        in.readRelocations();
        MovedFunction m = new MovedFunction(f);
        in.moved.put(m);
        in.decode(m);
        List<Long> out = new ArrayList<>();
        for (Item i : m.items) {
            if (i.kind != Kind.FALLTHROUGH && in.whyNot(m, i.oldAddress) == null) {
                out.add(i.oldAddress);
            }
        }
        return out;
    }

    private static boolean isLoadReserved(Item i) {
        return i.oldSize == 4 && (i.bits & 0x7f) == 0x2f && (i.bits >>> 27) == 0x02;
    }

    private static boolean isStoreConditional(Item i) {
        return i.oldSize == 4 && (i.bits & 0x7f) == 0x2f && (i.bits >>> 27) == 0x03;
    }

    // ------------------------------------------------------------------ layout

    /** The first page above everything loaded that keeps the load base (see ElfEditor.addressForNewSegments). */
    private long newSectionAddress(ElfEditor editor) {
        long size = 0;
        for (MovedFunction m : moved.functions()) {
            size += 2 * m.function.size() + 64;
            for (Item f : m.fragments.values()) {
                for (Insertion i : f.insertions) {
                    size += 4L * i.fragment().length();
                }
            }
        }
        return editor.addressForNewSegments(8 * size + (1 << 16));
    }

    /** Assigns addresses and grows branch forms until every pc-relative operand fits (sizes only grow). */
    private void layout(long base) {
        for (MovedFunction m : moved.functions()) {
            for (Item frag : m.fragments.values()) {
                frag.bytes = fragments.assemble(frag, 0);
            }
        }
        // Only branches, jumps and jumps back can grow: the relaxation rounds revisit just those, in the same order.
        List<Item> growable = new ArrayList<>();
        List<MovedFunction> owners = new ArrayList<>();
        for (MovedFunction m : moved.functions()) {
            for (Item i : m.items) {
                if (i.kind == Kind.BRANCH || i.kind == Kind.JUMP || i.kind == Kind.FALLTHROUGH) {
                    growable.add(i);
                    owners.add(m);
                }
            }
        }
        for (int round = 0; ; round++) {
            long at = base;
            for (MovedFunction m : moved.functions()) {
                at = (at + 7) & -8;
                m.newStart = at;
                for (Item i : m.items) {
                    i.newAddress = at;
                    at += i.size();
                }
                m.newSize = at - m.newStart;
            }
            boolean grown = false;
            for (int k = 0; k < growable.size(); k++) {
                grown |= grow(owners.get(k), growable.get(k));
            }
            if (!grown) {
                return;
            }
            if (round > 64) {
                throw new IllegalStateException("branch relaxation does not converge");
            }
        }
    }

    private boolean grow(MovedFunction m, Item i) {
        if (i.kind != Kind.BRANCH && i.kind != Kind.JUMP && i.kind != Kind.FALLTHROUGH) {
            return false;
        }
        long t = i.kind == Kind.FALLTHROUGH ? moved.mapFallThrough(i.target) : moved.mapBranchTarget(i.target);
        long offset = t - i.newAddress;
        boolean fits = switch (i.kind) {
            case BRANCH -> i.form == 0 ? Rv.fits(offset, 9) : i.form == 1 ? Rv.fits(offset, 13)
                    : i.form == 2 ? Rv.fits(offset - 4, 21) : Rv.fits(offset - 4, 32);
            default -> i.form == 0 ? Rv.fits(offset, 12) : i.form == 1 ? Rv.fits(offset, 21) : Rv.fits(offset, 32);
        };
        if (fits) {
            return false;
        }
        int last = i.kind == Kind.BRANCH ? 3 : 2;
        // A far jump needs a register: rd itself for calls; t1 for jumps to a function entry (a tail
        // call, which the psABI's `tail` also makes through t1) and for the jump back after a final
        // call (t1 is dead after any call); nothing known free otherwise.
        boolean scratch = i.kind == Kind.JUMP && (i.rd != 0 || functionStarts.contains(i.target) && moved.find(i.target) == null)
                || i.kind == Kind.FALLTHROUGH && i.afterCall;
        if (i.form == last || (i.form == last - 1 && !scratch)) {
            throw new PatchException(file + ": " + (i.kind == Kind.BRANCH ? "branch" : "jump") + " at 0x"
                    + Long.toHexString(i.oldAddress) + " in function '" + m.function.name() + "' cannot reach 0x"
                    + Long.toHexString(t) + " from its new address 0x" + Long.toHexString(i.newAddress)
                    + ": a long jump needs a free register, and none is known (the target is not a function entry)",
                    m.function.address());
        }
        i.form++;
        return true;
    }

    /** The functions that move and where their code went. */
    MovedCode moved() {
        return moved;
    }

    // ------------------------------------------------------------------ old entries, entry point, symbols, segment

    /**
     * The old entry jumps to the copy: {@code jal x0} when in range, else {@code auipc t1; jr t1}
     * (t1 may be clobbered at a function entry: the psABI's tail calls do the same).
     */
    private void writeTrampolines() {
        for (MovedFunction m : moved.functions()) {
            long from = m.function.address();
            long offset = trampolineTarget(m) - from;
            byte[] body = new byte[(int) m.function.size()]; // unimp after the jump: a missed reference traps
            if (Rv.fits(offset, 21)) {
                putU32(body, 0, Rv.encode("jal", 0, offset));
            } else if (body.length >= 8) {
                long hi = Rv.hi20(offset);
                putU32(body, 0, Rv.encode("auipc", Rv.T1, hi & 0xfffff));
                putU32(body, 4, Rv.encode("jalr", 0, offset - (hi << 12), Rv.T1));
            } else {
                throw new PatchException(file + ": function '" + m.function.name() + "' has " + body.length
                        + " bytes, too few for a jump to its copy at 0x" + Long.toHexString(m.newStart), m.function.address());
            }
            patches.add(new Patch(from, body));
        }
    }

    /**
     * Where the old entry jumps: where references to the entry go, unless code before the function
     * may fall through into it; then the fragment runs, as fall-through requires.
     */
    long trampolineTarget(MovedFunction m) {
        long start = m.function.address();
        return mayFallInto(start) ? moved.mapFallThrough(start) : moved.mapBranchTarget(start);
    }

    /** False only when a function ends exactly at {@code start} with an unconditional jump or return. */
    private boolean mayFallInto(long start) {
        for (Function p : elf.functionContaining(start - 1).stream().toList()) {
            if (p.endAddress() != start || p.size() < 2 || !p.section().isExecutable()) {
                return true;
            }
            MovedFunction decoded = moved.startingAt(p.address());
            if (decoded != null && decoded.function.address() == p.address() && decoded.function.size() == p.size() && !decoded.instructions.values().isEmpty()) {
                // Moved too, so decoded already (every instruction valid): its last instruction decides.
                List<Item> code = decoded.instructions.values();
                return canFallThrough(code.get(code.size() - 1));
            }
            long at = p.address();
            Item last = null;
            while (at < p.endAddress()) {
                long off = image.fileOffset(at);
                int parcel = image.u16(off);
                int size = Decoder.length(parcel);
                if (size != 2 && size != 4 || at + size > p.endAddress()) {
                    return true;
                }
                int bits = size == 2 ? parcel : (int) image.u32(off);
                Opcode op = decoder.decode(bits, size);
                if (op == null) {
                    return true;
                }
                if (at + size == p.endAddress()) {
                    last = op.hasBranchTarget() || op.mnemonic().equals("auipc") ? classify(op, bits, size, at)
                            : new Item(Kind.PLAIN, at, size);
                    last.bits = bits;
                }
                at += size;
            }
            return last == null || canFallThrough(last);
        }
        return true;
    }

    private int spareProgramHeader(ElfEditor editor) {
        for (int type : new int[] {PT_RISCV_ATTRIBUTES, Segment.PT_GNU_STACK}) {
            for (Segment s : editor.segments()) {
                if (s.type() == type) {
                    editor.setSegment(new Segment(s.index(), Segment.PT_LOAD, Segment.PF_R | Segment.PF_X, 0, 0, 0, 0, 0,
                            ElfEditor.PAGE_SIZE));
                    return s.index();
                }
            }
        }
        throw new PatchException(file + ": no spare program header (PT_RISCV_ATTRIBUTES or PT_GNU_STACK) for the new "
                + "code segment; the program header table cannot grow in place");
    }

    private void moveEntry(ElfEditor editor) {
        long entry = elf.header().entry();
        if (moved.find(entry) != null) {
            editor.setEntry(moved.mapBranchTarget(entry));
        }
    }

    private void moveSymbols(ElfEditor editor, int textIndex) {
        for (Section table : elf.sections()) {
            if (table.type() != Section.SHT_SYMTAB) {
                continue;
            }
            for (Symbol s : elf.symbols(table)) {
                if (!s.isDefinedInSection() || s.type() == Symbol.STT_SECTION || s.type() == Symbol.STT_FILE) {
                    continue;
                }
                MovedFunction m = moved.find(s.value());
                if (m == null || !elf.section(s.sectionIndex()).isExecutable()) {
                    continue;
                }
                long value;
                long size = s.size();
                if (s.value() == m.function.address()) {
                    value = m.newStart;
                    if (s.size() == m.function.size()) {
                        size = m.newSize;
                    }
                } else {
                    value = moved.mapInstruction(s.value());
                }
                editor.setSymbol(table.index(), new Symbol(s.index(), s.name(), value, size, s.type(), s.binding(),
                        s.visibility(), textIndex));
            }
        }
        Phases.mark("symbols");
    }

    private byte[] patchBytes() {
        List<Patch> sorted = new ArrayList<>(patches);
        sorted.sort(Comparator.comparingLong(Patch::address));
        int size = 0;
        for (Patch p : sorted) {
            size += 8 + p.bytes().length;
        }
        byte[] out = new byte[size];
        int at = 0;
        for (Patch p : sorted) {
            putU32(out, at, (int) p.address());
            putU32(out, at + 4, (int) (p.address() >>> 32));
            System.arraycopy(p.bytes(), 0, out, at + 8, p.bytes().length);
            at += 8 + p.bytes().length;
        }
        return out;
    }
}
