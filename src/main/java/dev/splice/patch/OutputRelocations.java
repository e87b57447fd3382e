package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ALIGN;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL_PLT;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_NONE;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RELAX;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_JUMP;

import dev.splice.base.Le;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.isa.Operand;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.MovedFunction.Partner;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes the output's static relocation sections (those {@code --emit-relocs} kept) describe the
 * output, so that a second {@code splice patch} and BOLT's tools can read it (docs/patch.md,
 * "The output's relocations"):
 * <ul>
 * <li>the relocations of moved code become {@code R_RISCV_NONE} in place (the old body is a jump and
 *     zeros) and are written again in {@code .rela.splice.text} at the new instructions, with the
 *     type of the new branch form and a symbol and addend that resolve to the new target;</li>
 * <li>the jump at every old entry (in {@code .rela.splice.org.SECTION}, so that the input's
 *     sections keep their size), the jump back after a function and the placement-dependent
 *     words of fragments (auipc pairs, {@code jal}) get relocations of their own;</li>
 * <li>relocations elsewhere that name moved code name what the bytes hold now: the new address
 *     when the reference was retargeted, the old body (symbol {@code NAME.splice.org}) when not;</li>
 * <li>.eh_frame relocations of moved functions' FDEs rewritten in place name the new pc_begin
 *     and pc_range; those of the CFA programs' advances and of records copied to
 *     {@code .splice.eh_frame} become {@code R_RISCV_NONE}; {@code .rela.splice.eh_frame} describes
 *     the pointer fields of the copies (pc_begin, pc_range, LSDA, personality).</li>
 * </ul>
 * Markers ({@code R_RISCV_RELAX}, {@code ALIGN}) of moved code are dropped: the new code is final.
 */
final class OutputRelocations {
    /** The relocation section of the new code. */
    static final String SECTION = ".rela" + NewSection.NAME;
    /** The relocation section of .eh_frame's continuation. */
    static final String FRAMES_SECTION = ".rela" + EhFrameRewriter.SECTION;
    /** The prefix of the relocation sections of the jumps at old entries ({@code .rela.splice.org.text}, ...). */
    static final String OLD_ENTRIES = ".rela.splice.org";
    /** The hidden symbol at the start of the new code, which relocations into it without a better symbol name. */
    static final String TEXT_SYMBOL = "__splice_text";

    /** True for the name of an earlier pass's {@link #TEXT_SYMBOL} ({@code __splice_text} or {@code __splice_text.ADDRESS}). */
    static boolean isTextSymbol(String name) {
        return name.equals(TEXT_SYMBOL) || name.startsWith(TEXT_SYMBOL + ".");
    }

    private final Input in;
    private final MovedCode moved;
    private final ElfEditor editor;
    private final Section symtab;
    private final List<Symbol> symbols;
    private final Map<MovedFunction, Integer> oldBodySymbols;
    /**
     * The index's entry of the relocation being rewritten, or null (markers and tp/gp-relative
     * types are not in the index): the index lists the same relocation objects in the same order,
     * so one cursor walks both, without a map of every relocation.
     */
    private Reloc current;
    /** The moved functions by new start, and by old start; the symbol naming each. */
    private final List<MovedFunction> byNewStart = new ArrayList<>();
    private final Map<Long, MovedFunction> byStart = new HashMap<>();
    private final Map<MovedFunction, Integer> functionSymbols = new HashMap<>();
    /** The section symbols of allocated sections, with their sections: few, searched for every reference into data. */
    private final List<Map.Entry<Symbol, Section>> sectionSymbols = new ArrayList<>();
    private long textBase;
    private byte[] text;
    private int textIndex;
    private int textSymbol;
    private RuntimeSymbols runtime = RuntimeSymbols.NONE;
    private StayingSymbols staying;

    OutputRelocations(Input in, MovedCode moved, ElfEditor editor, Map<MovedFunction, Integer> oldBodySymbols) {
        this.in = in;
        this.moved = moved;
        this.editor = editor;
        this.oldBodySymbols = oldBodySymbols;
        ElfFile elf = in.elf();
        this.symtab = elf.sections().stream().filter(s -> s.type() == Section.SHT_SYMTAB).findFirst().orElse(null);
        this.symbols = symtab == null ? List.of() : elf.symbols(symtab);
        for (Symbol s : symbols) {
            if (s.type() == Symbol.STT_SECTION && s.isDefinedInSection()) {
                Section sec = elf.section(s.sectionIndex());
                if (sec.isAllocated()) {
                    sectionSymbols.add(Map.entry(s, sec));
                }
            }
        }
    }

    /**
     * Rewrites the relocation sections; {@code retargeted} holds the new value of every reference
     * the retarget stage moved, {@code text} the new code at {@code base} (section {@code textIndex}).
     * {@code frames} holds the pointer fields {@link EhFrameRewriter} wrote, {@code framesIndex} the
     * index of .eh_frame's continuation, or -1 when it has none; {@code runtime} the
     * placement-dependent words of the runtime's code there and its symbols.
     * Without a {@code .symtab} there is nothing to describe relocations with, and nothing changes.
     */
    void write(Map<Relocation, Long> retargeted, Trampolines trampolines, long base, byte[] text, int textIndex,
               EhFrameRewriter frames, int framesIndex, RuntimeSymbols runtime) {
        if (symtab == null) {
            return;
        }
        this.runtime = runtime;
        this.textBase = base;
        this.text = text;
        this.textIndex = textIndex;
        byNewStart.addAll(moved.functions());
        byNewStart.sort(Comparator.comparingLong(m -> m.newStart));
        for (MovedFunction m : moved.functions()) {
            byStart.put(m.function.address(), m);
        }
        for (Symbol s : symbols) {
            MovedFunction m = s.type() == Symbol.STT_FUNC && s.isDefinedInSection() ? byStart.get(s.value()) : null;
            if (m != null && (!functionSymbols.containsKey(m) || s.size() == m.function.size())) {
                functionSymbols.put(m, s.index());
            }
        }
        Section continuation = framesIndex < 0 ? null : editor.section(framesIndex);
        Map<Long, List<EhFrameRewriter.Field>> framesInPlace = new HashMap<>();
        List<Relocation> continued = new ArrayList<>();
        for (EhFrameRewriter.Field f : frames.fields()) {
            if (continuation != null && continuation.contains(f.address())) {
                continued.add(f.type() == R_RISCV_ADD32 || f.type() == R_RISCV_ADD64 ? end(f.address(), f.type(), f.value())
                        : against(f.address(), f.type(), f.value()));
            } else {
                framesInPlace.computeIfAbsent(f.address(), k -> new ArrayList<>(2)).add(f);
            }
        }
        List<Relocation> newCode = new ArrayList<>();
        Map<Integer, List<Relocation>> oldEntries = oldEntryJumps(trampolines);
        List<Reloc> index = in.relocations().all();
        int cursor = 0;
        for (RelocationSection rs : in.elf().relocations()) {
            Section on = rs.target();
            if (rs.section().isAllocated() || on.index() == 0 || !on.isAllocated() || rs.section().link() != symtab.index()) {
                continue;
            }
            while (cursor < index.size() && index.get(cursor).section().index() < rs.section().index()) {
                cursor++; // entries of a section skipped here (both lists are in header order)
            }
            byte[] out = new byte[rs.relocations().size() * Relocation.ENTRY_SIZE];
            int entry = 0;
            // An earlier pass's continuation is among them: its records were copied, its size is 0 now.
            boolean isFrames = on.name().equals(".eh_frame") || on.name().equals(EhFrameRewriter.SECTION);
            long framesEnd = on.address() + editor.section(on.index()).size();
            for (Relocation r : rs.relocations()) {
                current = cursor < index.size() && index.get(cursor).relocation() == r ? index.get(cursor++) : null;
                Relocation now;
                if (on.isExecutable() && moved.find(r.offset()) != null) {
                    now = none(r);
                    moveToNewCode(r, newCode);
                } else if (isFrames) {
                    now = r.offset() >= framesEnd ? none(r) : frameRelocation(r, frames, framesInPlace);
                } else {
                    now = describeOutput(r, retargeted);
                }
                put(out, entry++, now);
            }
            current = null;
            editor.setContents(rs.section().index(), out); // same size: in place
        }
        // In sections of their own: the input's keep their size, so they need not move to the end of the file.
        for (Map.Entry<Integer, List<Relocation>> e : oldEntries.entrySet()) {
            Section on = in.elf().section(e.getKey());
            editor.addSection(OLD_ENTRIES + on.name(), Section.SHT_RELA, Section.SHF_INFO_LINK, 0, 8, Relocation.ENTRY_SIZE,
                    symtab.index(), on.index(), bytes(e.getValue()));
        }
        addNewCodeRelocations(newCode);
        for (RuntimeReference r : runtime.references()) {
            newCode.add(against(r.at(), r.type(), r.target()));
        }
        newCode.sort(Comparator.comparingLong(Relocation::offset));
        editor.addSection(SECTION, Section.SHT_RELA, Section.SHF_INFO_LINK, 0, 8, Relocation.ENTRY_SIZE, symtab.index(), textIndex,
                bytes(newCode));
        if (continuation != null) {
            continued.sort(Comparator.comparingLong(Relocation::offset));
            editor.addSection(FRAMES_SECTION, Section.SHT_RELA, Section.SHF_INFO_LINK, 0, 8, Relocation.ENTRY_SIZE, symtab.index(),
                    framesIndex, bytes(continued));
        }
    }

    /**
     * A relocation of a record left in .eh_frame. In a moved function's FDE rewritten in place,
     * pc_begin and pc_range name the new code and the others (the advances of the CFA program,
     * whose deltas were recomputed) none; in other records, a value in or at the end of moved code
     * (the end of a function before a moved one) is named through the old body's symbol.
     */
    private Relocation frameRelocation(Relocation r, EhFrameRewriter frames, Map<Long, List<EhFrameRewriter.Field>> fields) {
        if (frames.inRewrittenRecord(r.offset())) {
            for (EhFrameRewriter.Field f : fields.getOrDefault(r.offset(), List.of())) {
                if (f.type() == r.type()) {
                    return against(r.offset(), r.type(), f.value());
                }
            }
            return none(r);
        }
        return namesMovedCode(r) ? against(r.offset(), r.type(), r, known(r).value()) : r;
    }

    /**
     * An upper bound of the bytes {@link #write} appends to the file (its new relocation sections,
     * each with a page of alignment slack), known before the new code's address is chosen: two
     * relocations for every one of the moved code (a call split in two) and for every fixup of a
     * fragment, one for every old entry and one for every jump back, and one for every 4 bytes of
     * the records .eh_frame's continuation can copy (an FDE of 16 bytes or more has 4 pointer fields
     * at most).
     */
    static long reserve(Input in, MovedCode moved) {
        long count = 0;
        RelocationIndex relocations = in.relocations();
        for (MovedFunction m : moved.functions()) {
            int from = relocations.firstAt(m.function.address());
            int to = relocations.firstAt(m.function.endAddress());
            count += 2L * (to - from) + 2;
            for (Item frag : m.fragments.values()) {
                for (FragmentCode code : frag.codes) {
                    count += 2L * code.fixups().length;
                }
            }
        }
        for (Section s : in.elf().sections()) {
            if (s.name().equals(".eh_frame") || s.name().equals(EhFrameRewriter.SECTION)) {
                count += s.size() / 4;
            }
        }
        return count * Relocation.ENTRY_SIZE + 5 * ElfEditor.PAGE_SIZE;
    }

    /** The same place, no relocation: the entry count of the section stays (as ld does for relaxed-away relocations). */
    private static Relocation none(Relocation r) {
        return new Relocation(r.offset(), R_RISCV_NONE, 0, 0);
    }

    /** The index's entry of {@code r} if it is the relocation being rewritten, else null. */
    private Reloc known(Relocation r) {
        return current != null && current.relocation() == r ? current : null;
    }

    private boolean namesMovedCode(Relocation r) {
        Reloc known = known(r);
        return known != null && (moved.find(known.value()) != null || endOfMoved(known.value()));
    }

    private boolean endOfMoved(long value) {
        MovedFunction m = moved.find(value - 1);
        return m != null && m.function.endAddress() == value;
    }

    /** A relocation of code and data that stay: what the bytes at its place name now. */
    private Relocation describeOutput(Relocation r, Map<Relocation, Long> retargeted) {
        Long to = retargeted.get(r);
        Reloc known = known(r);
        if (to == null && (known == null || !namesMovedCode(r))) {
            return r; // names nothing that moved: the symbol's value is unchanged, or it moved with the code it names
        }
        long value = to != null ? to : known.value();
        return against(r.offset(), r.type(), r, value);
    }

    /** The relocations of the jump at each old entry, by the index of the section holding the old body. */
    private Map<Integer, List<Relocation>> oldEntryJumps(Trampolines trampolines) {
        Map<Integer, List<Relocation>> bySection = new java.util.TreeMap<>();
        for (MovedFunction m : moved.functions()) {
            long from = m.function.address();
            long to = trampolines.target(m);
            BranchForm form = trampolines.jumpForm(m);
            if (form == null) {
                continue; // no jump: nothing uses the old entry
            }
            int type = form == BranchForm.JAL ? R_RISCV_JAL : form == BranchForm.C_JUMP ? R_RISCV_RVC_JUMP : R_RISCV_CALL;
            bySection.computeIfAbsent(m.function.section().index(), k -> new ArrayList<>())
                    .add(against(from, type, to));
        }
        return bySection;
    }

    /** Writes {@code r}, a relocation of moved code, again at its instruction's new place. */
    private void moveToNewCode(Relocation r, List<Relocation> out) {
        int type = r.type();
        if (type == R_RISCV_RELAX || type == R_RISCV_ALIGN || type == R_RISCV_NONE) {
            return;
        }
        Reloc known = known(r);
        MovedFunction m = moved.find(r.offset());
        Item item = m.instructions.get(r.offset());
        if (item == null || known == null && !keepsValue(type)) {
            throw new PatchException(Reason.UNSUPPORTED_RELOCATION, in.file() + ": relocation type " + type + " at 0x"
                    + Long.toHexString(r.offset()) + " in function '" + m.function.name() + "' cannot be described at the new code",
                    m.function.address());
        }
        switch (type) {
            case R_RISCV_BRANCH, R_RISCV_RVC_BRANCH, R_RISCV_JAL, R_RISCV_RVC_JUMP -> {
                long target = moved.mapBranchTarget(item.target);
                long at = item.newAddress;
                int newType = switch (item.form) {
                    case C_BRANCH -> R_RISCV_RVC_BRANCH;
                    case BRANCH -> R_RISCV_BRANCH;
                    case BRANCH_OVER_JAL -> R_RISCV_JAL;
                    case BRANCH_OVER_FAR_JUMP -> R_RISCV_CALL;
                    case C_JUMP -> R_RISCV_RVC_JUMP;
                    case JAL -> R_RISCV_JAL;
                    case FAR_JUMP -> R_RISCV_CALL;
                };
                if (item.form == BranchForm.BRANCH_OVER_JAL || item.form == BranchForm.BRANCH_OVER_FAR_JUMP) {
                    at += 4;
                }
                out.add(against(at, newType, r, target));
            }
            case R_RISCV_CALL, R_RISCV_CALL_PLT -> {
                Partner jalr = item.partners.get(0);
                long target = moved.mapBranchTarget(jalr.target());
                if (jalr.item().newAddress == item.newAddress + 4) {
                    out.add(against(item.newAddress, type, r, target));
                } else { // something was inserted between them: no longer a call sequence
                    out.add(against(item.newAddress, R_RISCV_PCREL_HI20, r, target));
                    out.add(against(jalr.item().newAddress, R_RISCV_PCREL_LO12_I, item.newAddress));
                }
            }
            case R_RISCV_PCREL_LO12_I, R_RISCV_PCREL_LO12_S ->
                    out.add(against(item.newAddress, type, r, moved.mapInstruction(known.value())));
            default -> {
                if (known != null && moved.find(known.value()) != null) {
                    out.add(against(item.newAddress, type, r, moved.mapBranchTarget(known.value())));
                } else {
                    // The target stayed (data, GOT, TLS, other code): same symbol, same addend.
                    out.add(new Relocation(item.newAddress, type, r.symbolIndex(), r.addend()));
                }
            }
        }
    }

    /** Types the relocation index leaves out (tp/gp-relative): the value does not depend on where the code is. */
    private static boolean keepsValue(int type) {
        return type != R_RISCV_BRANCH && type != R_RISCV_RVC_BRANCH && type != R_RISCV_JAL && type != R_RISCV_RVC_JUMP
                && type != R_RISCV_CALL && type != R_RISCV_CALL_PLT && type != R_RISCV_PCREL_HI20
                && type != R_RISCV_PCREL_LO12_I && type != R_RISCV_PCREL_LO12_S;
    }

    /**
     * The relocations of code Splice added: the jump back after a function (to where execution
     * continues now), and the auipc pairs and {@code jal}s of the fragments, whose targets are read
     * back from the new code.
     */
    private void addNewCodeRelocations(List<Relocation> out) {
        for (MovedFunction m : moved.functions()) {
            for (Item frag : m.items) {
                if (frag.kind == Kind.FALLTHROUGH) {
                    long target = moved.mapFallThrough(frag.target);
                    out.add(against(frag.newAddress, frag.form == BranchForm.FAR_JUMP ? R_RISCV_CALL : R_RISCV_JAL, target));
                }
                if (frag.kind != Kind.FRAGMENT) {
                    continue;
                }
                long address = frag.newAddress;
                for (FragmentCode code : frag.codes) {
                    for (FragmentCode.Fixup f : code.fixups()) {
                        long pc = address + f.offset();
                        int at = (int) (pc - textBase);
                        int first = Le.u32(text, at);
                        if (f.pair()) {
                            int low = Le.u32(text, at + 4);
                            long target = pc + Rv.upper(Rv.AUIPC, first) + f.low().operand(low, Operand.IMM);
                            if (f.low() == Rv.JALR) { // call or tail: one relocation for both words, as the assembler makes
                                out.add(against(pc, R_RISCV_CALL, target));
                                continue;
                            }
                            boolean store = f.low().has(Operand.RS2) && !f.low().has(Operand.RD);
                            out.add(against(pc, R_RISCV_PCREL_HI20, target));
                            out.add(against(pc + 4, store ? R_RISCV_PCREL_LO12_S : R_RISCV_PCREL_LO12_I, pc));
                        } else {
                            out.add(against(pc, R_RISCV_JAL, pc + Rv.JAL.operand(first, Operand.BRANCH_OFFSET)));
                        }
                    }
                    address += code.size();
                }
            }
        }
    }

    /**
     * A relocation at {@code offset} whose symbol plus addend is {@code value} in the output, with
     * the symbol of {@code r} when that symbol still covers the value (its value in the output is
     * used), else the new code's symbol, the old body's or the input section's holding the value.
     */
    private Relocation against(long offset, int type, Relocation r, long value) {
        int index = r.symbolIndex();
        if (index != 0 && index < symbols.size()) {
            Symbol s = symbols.get(index);
            long now = outputValue(s);
            Reloc known = known(r);
            // Unchanged target and symbol (an import's PLT stub among them): the input's relocation stays true.
            if (now + r.addend() == value || known != null && known.value() == value && now == s.value()) {
                return new Relocation(offset, type, index, r.addend());
            }
            long size = s.type() == Symbol.STT_SECTION ? in.elf().section(s.sectionIndex()).size() : s.size();
            if (s.isDefinedInSection() && value >= now && value < now + size) {
                return new Relocation(offset, type, index, value - now);
            }
        }
        return against(offset, type, value);
    }

    /**
     * A relocation at {@code offset} whose symbol plus addend is {@code value} in the output: in
     * the new code, the symbol of the moved function holding the value (BOLT takes a reference
     * from another function's symbol beyond its end for a non-standard one), or the runtime's, else
     * {@link #TEXT_SYMBOL}; in the runtime's data, its symbol there; in an old body, its symbol;
     * elsewhere the input's nearest named symbol at or below the value ({@link StayingSymbols}),
     * the section's symbol only when there is none.
     */
    private Relocation against(long offset, int type, long value) {
        Map.Entry<Long, Integer> inRuntime = runtime.holding(value);
        if (inRuntime != null) {
            return new Relocation(offset, type, inRuntime.getValue(), value - inRuntime.getKey());
        }
        if (value >= textBase && value <= textBase + text.length) {
            MovedFunction m = movedAt(value);
            Integer symbol = m == null ? null : functionSymbols.get(m);
            if (symbol != null) {
                return new Relocation(offset, type, symbol, value - m.newStart);
            }
            return new Relocation(offset, type, textSymbol(), value - textBase);
        }
        MovedFunction old = moved.find(value);
        if (old != null && oldBodySymbols.containsKey(old)) {
            return new Relocation(offset, type, oldBodySymbols.get(old), value - old.function.address());
        }
        for (Map.Entry<Symbol, Section> e : sectionSymbols) {
            Section sec = e.getValue();
            if (value >= sec.address() && value < sec.address() + sec.size()) {
                // A named symbol, not the section's: BOLT misreads auipc-pair relocations against a section symbol.
                Map.Entry<Symbol, Long> named = stayingSymbols().naming(value, sec);
                return named != null ? new Relocation(offset, type, named.getKey().index(), named.getValue())
                        : new Relocation(offset, type, e.getKey().index(), value - sec.address());
            }
        }
        return new Relocation(offset, type, 0, value);
    }

    /**
     * A relocation whose value is the end of a function (the {@code ADD} of a pc_range): as
     * {@link #against} when moved code follows (the next function's symbol), else against the moved
     * function that ends there (BOLT takes a reference from one function's symbol into another
     * function, or to {@link #TEXT_SYMBOL} plus an offset, for a non-standard one).
     */
    private Relocation end(long offset, int type, long value) {
        MovedFunction m = movedAt(value) == null ? movedAt(value - 1) : null;
        Integer symbol = m == null || m.newStart + m.newSize != value ? null : functionSymbols.get(m);
        return symbol != null ? new Relocation(offset, type, symbol, m.newSize) : against(offset, type, value);
    }

    /** The moved function whose new code holds {@code address}, or null (the runtime, padding). */
    private MovedFunction movedAt(long address) {
        int lo = 0;
        int hi = byNewStart.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            MovedFunction m = byNewStart.get(mid);
            if (address < m.newStart) {
                hi = mid - 1;
            } else if (address >= m.newStart + m.newSize) {
                lo = mid + 1;
            } else {
                return m;
            }
        }
        return null;
    }

    /**
     * The symbol that starts the new code, added on first use; in a second pass, whose input has
     * the first pass's, it is {@code __splice_text.ADDRESS} (BOLT refuses a binary with two
     * global symbols of one name: "global symbol ... is not unique").
     */
    private int textSymbol() {
        if (textSymbol == 0) {
            boolean taken = symbols.stream().anyMatch(s -> s.name().equals(TEXT_SYMBOL));
            String name = taken ? TEXT_SYMBOL + "." + Long.toHexString(textBase) : TEXT_SYMBOL;
            textSymbol = editor.addSymbol(symtab.index(), new Symbol(0, name, textBase, 0, Symbol.STT_NOTYPE,
                    Symbol.STB_GLOBAL, Symbol.STV_HIDDEN, textIndex));
        }
        return textSymbol;
    }

    /** The input's named symbols of what stays, built on first use (most outputs never need them). */
    private StayingSymbols stayingSymbols() {
        if (staying == null) {
            staying = new StayingSymbols(in.elf(), symbols, moved);
        }
        return staying;
    }

    /** A symbol's value in the output ({@link SymbolMover} moves those of moved code). */
    private long outputValue(Symbol s) {
        return SymbolMover.newValue(in.elf(), moved, s);
    }

    private static byte[] bytes(List<Relocation> relocations) {
        byte[] out = new byte[relocations.size() * Relocation.ENTRY_SIZE];
        for (int i = 0; i < relocations.size(); i++) {
            put(out, i, relocations.get(i));
        }
        return out;
    }

    /** Writes {@code r} as entry {@code i} of a relocation section's bytes. */
    private static void put(byte[] out, int i, Relocation r) {
        int at = i * Relocation.ENTRY_SIZE;
        Le.putU64(out, at, r.offset());
        Le.putU64(out, at + 8, r.info());
        Le.putU64(out, at + 16, r.addend());
    }
}
