package dev.splice.cfg;

import dev.splice.base.Le;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.elf.reloc.RiscVRelocations;
import dev.splice.elf.reloc.X86Relocations;
import java.util.Arrays;
import java.util.List;

/**
 * The code and data addresses the loader's relative relocations ({@code R_RISCV_RELATIVE},
 * {@code R_X86_64_RELATIVE}) of a PIE or shared library store, read as perf2bolt-22's
 * RewriteInstance::processDynamicRelocations reads them: the RELA tables {@code DT_RELA} and
 * {@code DT_JMPREL} of {@code .dynamic} point to (a file without {@code .dynamic}: its
 * {@code .rela.dyn}); not {@code DT_RELR}, whose words LLVM 22 does not look at for this. BOLT
 * makes each such address inside a function (not its start) a secondary entry point of it: the
 * labels of a computed goto's table in a PIE, among others (docs/cfg.md).
 */
public final class RelativeRelocationTargets {
    private RelativeRelocationTargets() {}

    private static final long DT_NULL = 0;
    private static final long DT_RELA = 7;
    private static final long DT_JMPREL = 23;
    private static final int DYNAMIC_ENTRY_SIZE = 16;

    /**
     * The addresses, sorted, without duplicates.
     *
     * @param elf a RISC-V or x86-64 file
     * @return the targets: the addends of those without a symbol value (against a symbol with one,
     *     BOLT stops with an error)
     */
    public static long[] of(ElfFile elf) {
        int relative = elf.isRiscV() ? RiscVRelocations.R_RISCV_RELATIVE : X86Relocations.R_X86_64_RELATIVE;
        long[] tables = tableAddresses(elf);
        List<Symbol> dynsym = elf.dynamicSymbols();
        long[] out = new long[16];
        int n = 0;
        for (RelocationSection rs : elf.relocations()) {
            Section s = rs.section();
            boolean read = tables == null ? s.name().equals(".rela.dyn")
                    : s.isAllocated() && Arrays.stream(tables).anyMatch(a -> a == s.address());
            if (!read) {
                continue;
            }
            for (Relocation r : rs.relocations()) {
                long symbolValue = r.symbolIndex() > 0 && r.symbolIndex() < dynsym.size() ? dynsym.get(r.symbolIndex()).value() : 0;
                if (r.type() != relative || symbolValue != 0) {
                    continue;
                }
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = r.addend();
            }
        }
        return Arrays.stream(out, 0, n).sorted().distinct().toArray();
    }

    /** The addresses DT_RELA and DT_JMPREL give, or null for a file without a dynamic section. */
    private static long[] tableAddresses(ElfFile elf) {
        Section dynamic = elf.sections().stream().filter(s -> s.type() == Section.SHT_DYNAMIC && !s.isNobits())
                .findFirst().orElse(null);
        if (dynamic == null) {
            return null;
        }
        byte[] b = elf.contents(dynamic);
        long[] found = new long[2];
        int n = 0;
        for (int at = 0; at + DYNAMIC_ENTRY_SIZE <= b.length && n < found.length; at += DYNAMIC_ENTRY_SIZE) {
            long tag = Le.u64(b, at);
            if (tag == DT_NULL) {
                break;
            }
            if (tag == DT_RELA || tag == DT_JMPREL) {
                found[n++] = Le.u64(b, at + 8);
            }
        }
        return Arrays.copyOf(found, n);
    }
}
