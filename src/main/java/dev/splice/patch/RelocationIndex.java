package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ALIGN;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL_PLT;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GPREL_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GPREL_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_NONE;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RELAX;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_JUMP;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_ADD;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_S;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The relocations that {@code --emit-relocs} kept for the allocated sections, with their symbols
 * resolved: in file order, by offset (for lookups by address without boxing) and the pc-relative
 * low parts by the address of their auipc. Insertion moves code and must know every reference to
 * it, so a binary without relocations for its code is refused here. Read once, then only read:
 * the retries of a bulk rewrite and the decoding threads share one index.
 */
final class RelocationIndex {
    /** A relocation, the section it lives in and the one it applies to, and its symbol's value and name. */
    record Reloc(Section section, Section target, Relocation relocation, long symbolValue, String symbolName) {
        long value() {
            return symbolValue + relocation.addend();
        }

        int type() {
            return relocation.type();
        }

        long offset() {
            return relocation.offset();
        }
    }

    /** In the order of their sections and entries. */
    private final List<Reloc> all;
    /** pc-relative low parts by the address of their auipc. */
    private final Map<Long, List<Reloc>> lowParts;
    /** Every relocation sorted (stably) by offset, and the offsets. */
    private final Reloc[] byOffset;
    private final long[] offsets;
    /** The sections that relocation sections apply to (allocated or not). */
    private final List<Section> relocated;

    private RelocationIndex(List<Reloc> all, Map<Long, List<Reloc>> lowParts, List<Section> relocated) {
        this.all = all;
        this.lowParts = lowParts;
        this.relocated = relocated;
        byOffset = all.toArray(new Reloc[0]);
        Arrays.sort(byOffset, Comparator.comparingLong(Reloc::offset)); // stable: same-offset order kept
        offsets = new long[byOffset.length];
        for (int i = 0; i < byOffset.length; i++) {
            offsets[i] = byOffset[i].offset();
        }
    }

    /**
     * Reads the relocations of {@code elf} (named {@code file} in messages); references to
     * functions with a stub in {@code plt} resolve to it as the linker resolved them.
     */
    static RelocationIndex read(ElfFile elf, String file, PltStubs plt) {
        List<Reloc> all = new ArrayList<>();
        Map<Long, List<Reloc>> lowParts = new HashMap<>();
        List<Section> relocated = new ArrayList<>();
        boolean any = false;
        for (RelocationSection rs : elf.relocations()) {
            Section on = rs.target();
            if (rs.section().isAllocated()) {
                continue; // dynamic relocations (.rela.dyn, .rela.plt): DynamicRelocations
            }
            if (on.index() != 0) {
                relocated.add(on);
            }
            if (on.index() == 0 || !on.isAllocated()) {
                continue; // debug sections
            }
            if (on.isExecutable()) {
                any = true;
            }
            List<Symbol> symbols = elf.symbols(rs);
            for (Relocation r : rs.relocations()) {
                long value = 0;
                String name = "";
                if (r.symbolIndex() != 0) {
                    if (r.symbolIndex() >= symbols.size()) {
                        throw new PatchException(Reason.MALFORMED_INPUT, file + ": " + rs.section().name() + ": relocation at 0x"
                                + Long.toHexString(r.offset()) + " names symbol " + r.symbolIndex() + " of " + symbols.size());
                    }
                    Symbol s = symbols.get(r.symbolIndex());
                    value = resolve(s, r.type(), plt);
                    name = s.name();
                }
                if (isPositionIndependent(r.type())) {
                    continue; // markers (R_RISCV_RELAX, NONE, ...) and tp/gp-relative values: every pass skips them
                }
                Reloc reloc = new Reloc(rs.section(), on, r, value, name);
                all.add(reloc);
                if (isPcrelLo(r.type())) {
                    lowParts.computeIfAbsent(value, k -> new ArrayList<>(2)).add(reloc);
                }
            }
        }
        if (!any) {
            boolean dynamic = elf.relocations().stream().anyMatch(rs -> rs.section().isAllocated());
            throw new PatchException(Reason.NO_RELOCATIONS, file + ": has no relocations for its code (no relocation section "
                    + "applies to an executable section" + (dynamic ? "; .rela.dyn and .rela.plt are the dynamic loader's, "
                    + "which name only the words it fills" : "") + "); insertion moves code and must know every reference "
                    + "to it: relink with -Wl,--emit-relocs added to the same link options");
        }
        return new RelocationIndex(all, lowParts, relocated);
    }

    /**
     * The address the linker resolved a relocation of {@code type} against {@code s} to: the PLT
     * stub for an imported function, and for calls and jumps to a function that has one (an
     * exported function of a shared library); else the symbol's value.
     */
    private static long resolve(Symbol s, int type, PltStubs plt) {
        boolean branch = switch (type) {
            case R_RISCV_CALL, R_RISCV_CALL_PLT, R_RISCV_JAL, R_RISCV_RVC_JUMP, R_RISCV_BRANCH, R_RISCV_RVC_BRANCH -> true;
            default -> false;
        };
        if (branch || s.sectionIndex() == Section.SHN_UNDEF) {
            long stub = plt.stubOf(s);
            if (stub >= 0) {
                return stub;
            }
        }
        return s.value();
    }

    /** True if a relocation section applies to the section holding {@code address}. */
    boolean appliesTo(long address) {
        for (Section s : relocated) {
            if (s.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** True for the low parts of pc-relative pairs, which name their auipc. */
    static boolean isPcrelLo(int type) {
        return type == R_RISCV_PCREL_LO12_I || type == R_RISCV_PCREL_LO12_S;
    }

    /** Types that may sit on moved code and need nothing (markers, or absolute/gp/tp-relative values): not kept. */
    private static boolean isPositionIndependent(int type) {
        return switch (type) {
            case R_RISCV_NONE, R_RISCV_RELAX, R_RISCV_ALIGN, R_RISCV_TPREL_HI20, R_RISCV_TPREL_LO12_I, R_RISCV_TPREL_LO12_S,
                    R_RISCV_TPREL_ADD, R_RISCV_GPREL_I, R_RISCV_GPREL_S, R_RISCV_TPREL_I, R_RISCV_TPREL_S -> true;
            default -> false;
        };
    }

    /** Every relocation, in the order of their sections and entries. */
    List<Reloc> all() {
        return all;
    }

    /** The pc-relative low parts completing the auipc at {@code auipc}. */
    List<Reloc> lowParts(long auipc) {
        return lowParts.getOrDefault(auipc, List.of());
    }

    /** The number of relocations, for walks by index from {@link #firstAt}. */
    int size() {
        return offsets.length;
    }

    /** The offset of the {@code k}-th relocation in offset order. */
    long offset(int k) {
        return offsets[k];
    }

    /** The {@code k}-th relocation in offset order. */
    Reloc get(int k) {
        return byOffset[k];
    }

    /** The index (in offset order) of the first relocation at or after {@code offset}. */
    int firstAt(long offset) {
        int lo = 0;
        int hi = offsets.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (offsets[mid] < offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The relocations at {@code offset}, in the order of their sections and entries. */
    List<Reloc> at(long offset) {
        int from = firstAt(offset);
        int to = from;
        while (to < offsets.length && offsets[to] == offset) {
            to++;
        }
        return from == to ? List.of() : Arrays.asList(byOffset).subList(from, to);
    }
}
