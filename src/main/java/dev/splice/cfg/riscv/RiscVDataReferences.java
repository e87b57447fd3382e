package dev.splice.cfg.riscv;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import java.util.Arrays;
import java.util.List;

/**
 * The code addresses that data relocations of a RISC-V binary linked with --emit-relocs name
 * (jump-table entries are R_RISCV_ADD32/R_RISCV_SUB32 pairs in .rodata, code pointers R_RISCV_64):
 * BOLT, in relocation mode, makes each one a label of the function it falls in. Relocations in
 * .eh_frame and .gcc_except_table are not among them: with them, call-site starts became block
 * starts where perf2bolt-22 has none (5 of 10,531 lines on the static C++ test program differed).
 * Nor are words the dynamic loader relocates (a dynamic relocation at the same place: code pointers
 * and computed-goto label tables of a PIE or shared library, R_RISCV_RELATIVE): perf2bolt-22 does not
 * make their targets labels, so in strict mode an indirect jump of a function referred to only
 * through them has no successors, and a trace across it gives no fall-throughs (it counts as
 * mismatching); in static and position-dependent builds the same table makes them labels.
 */
public final class RiscVDataReferences {
    private RiscVDataReferences() {}

    // BOLT reads these itself (CFI, LSDA call-site tables), not as references to code; .splice.eh_frame
    // is the continuation of .eh_frame in a Splice output.
    private static final java.util.Set<String> SKIPPED = java.util.Set.of(".eh_frame", ".gcc_except_table", ".splice.eh_frame");

    /**
     * The code addresses the file's data relocations name.
     *
     * @param elf a RISC-V file
     * @return sorted addresses; empty for a binary without relocations of code (BOLT's non-relocation mode)
     */
    public static long[] of(ElfFile elf) {
        if (elf.section(".rela.text").isEmpty()) {
            return new long[0];
        }
        List<Symbol> symbols = elf.symbols();
        java.util.Set<Long> loaderRelocated = new java.util.HashSet<>();
        boolean dynamic = elf.sections().stream().anyMatch(s -> s.type() == Section.SHT_DYNAMIC);
        for (RelocationSection rs : elf.relocations()) {
            if (dynamic && rs.section().isAllocated()) {
                for (Relocation r : rs.relocations()) {
                    loaderRelocated.add(r.offset());
                }
            }
        }
        long[] refs = new long[16];
        int n = 0;
        for (RelocationSection rs : elf.relocations()) {
            Section target = rs.target();
            if (rs.section().isAllocated() || !target.isAllocated() || target.isExecutable() || SKIPPED.contains(target.name())) {
                continue;
            }
            for (Relocation r : rs.relocations()) {
                int type = r.type();
                if ((type != R_RISCV_32 && type != R_RISCV_64 && type != R_RISCV_ADD32 && type != R_RISCV_ADD64)
                        || r.symbolIndex() <= 0 || r.symbolIndex() >= symbols.size()
                        || !loaderRelocated.isEmpty() && loaderRelocated.contains(r.offset())) {
                    continue;
                }
                long value = symbols.get(r.symbolIndex()).value() + r.addend();
                if (elf.sectionContaining(value).map(Section::isExecutable).orElse(false)) {
                    if (n == refs.length) {
                        refs = Arrays.copyOf(refs, n * 2);
                    }
                    refs[n++] = value;
                }
            }
        }
        long[] out = Arrays.copyOf(refs, n);
        Arrays.sort(out);
        return out;
    }

    /**
     * The offsets from {@code start} of the sorted addresses in [start, start + size): the
     * references (or landing pads) of one function, for {@link RiscVCfg#of(byte[], int, int, int[], int[], int[], boolean, boolean)}.
     *
     * @param sorted addresses, ascending
     * @param start the function's address
     * @param size its size in bytes
     * @return the offsets, ascending
     */
    public static int[] within(long[] sorted, long start, int size) {
        int from = Arrays.binarySearch(sorted, start);
        from = from < 0 ? -from - 1 : from;
        int to = from;
        while (to < sorted.length && sorted[to] < start + size) {
            to++;
        }
        int[] out = new int[to - from];
        for (int i = from; i < to; i++) {
            out[i - from] = (int) (sorted[i] - start);
        }
        return out;
    }
}
