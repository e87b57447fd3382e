package dev.splice.cfg.x86;

import static dev.splice.elf.reloc.X86Relocations.R_X86_64_16;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_32;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_32S;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_64;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_8;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_GOTPC32;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_GOTPCREL;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_GOTPCRELX;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_PC16;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_PC32;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_PC64;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_PC8;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_PLT32;
import static dev.splice.elf.reloc.X86Relocations.R_X86_64_REX_GOTPCRELX;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@link X86Cfg} reads around a function, from an x86-64 ELF file as BOLT sees it: the bytes
 * of its sections, the relocations that apply to data (when code has relocations, linked with
 * --emit-relocs, BOLT works in relocation mode: it then requires one at each jump-table entry, and
 * makes the code addresses that absolute data relocations refer to labels), sized data symbols (a
 * table ends at one's end), and the fragments of a function (the {@code name.cold} parts GCC
 * splits off).
 */
public final class X86Binary implements X86Cfg.Memory {
    private static final Pattern FRAGMENT = Pattern.compile("^(.*)\\.(cold|warm)(\\.\\d+)?$");
    // x86-64 relocation types that are PC-relative.
    private static final Set<Integer> PC_RELATIVE = Set.of(R_X86_64_PC32, R_X86_64_PLT32, R_X86_64_GOTPCREL,
            R_X86_64_PC16, R_X86_64_PC8, R_X86_64_PC64, R_X86_64_GOTPC32, R_X86_64_GOTPCRELX, R_X86_64_REX_GOTPCRELX);
    private static final Set<Integer> ABSOLUTE = Set.of(R_X86_64_64, R_X86_64_32, R_X86_64_32S, R_X86_64_16, R_X86_64_8);

    private final ElfFile elf;
    private final boolean hasRelocations;
    private final Set<Long> relocated = new HashSet<>();
    private final Set<Long> pcRelocated = new HashSet<>();
    private final long[] references; // sorted code addresses absolute data relocations refer to
    private final Map<Long, Long> sizedData = new HashMap<>();
    private final boolean strict;

    private X86Binary(ElfFile elf, boolean strict) {
        this.elf = elf;
        List<Symbol> symbols = elf.symbols();
        long[] refs = new long[16];
        int n = 0;
        for (RelocationSection rs : elf.relocations()) {
            Section target = rs.target();
            if (!target.isAllocated()) {
                continue;
            }
            if (target.isExecutable()) {
                continue;
            }
            for (Relocation r : rs.relocations()) {
                relocated.add(r.offset());
                if (PC_RELATIVE.contains(r.type())) {
                    pcRelocated.add(r.offset());
                } else if (ABSOLUTE.contains(r.type()) && r.symbolIndex() > 0 && r.symbolIndex() < symbols.size()) {
                    long value = symbols.get(r.symbolIndex()).value() + r.addend();
                    if (elf.sectionContaining(value).map(Section::isExecutable).orElse(false)) {
                        if (n == refs.length) {
                            refs = Arrays.copyOf(refs, n * 2);
                        }
                        refs[n++] = value;
                    }
                }
            }
        }
        // BOLT's relocation mode (HasRelocations): the binary has relocations of .text.
        this.hasRelocations = elf.section(".rela.text").isPresent();
        this.strict = strict && hasRelocations;
        this.references = Arrays.copyOf(refs, n);
        Arrays.sort(references);
        for (Symbol s : symbols) {
            if (s.size() > 0 && s.isDefinedInSection() && !s.isFunction() && s.type() != Symbol.STT_SECTION) {
                sizedData.merge(s.value(), s.value() + s.size(), Math::max);
            }
        }
    }

    /**
     * The binary as perf2bolt-22 sees it (strict mode when it has relocations).
     *
     * @param elf an x86-64 file
     * @return what its CFGs read
     */
    public static X86Binary of(ElfFile elf) {
        return new X86Binary(elf, true);
    }

    /** The binary as llvm-bolt-22 without --strict sees it (whose --print-cfg the tests compare with). */
    static X86Binary nonStrict(ElfFile elf) {
        return new X86Binary(elf, false);
    }

    @Override
    public boolean strictMode() {
        return strict;
    }

    private Optional<Section> stored(long address, int bytes) {
        return elf.sectionContaining(address)
                .filter(s -> !s.isNobits() && s.type() != Section.SHT_NULL && address + bytes <= s.address() + s.size());
    }

    @Override
    public Long read64(long address) {
        return stored(address, 8).map(s -> elf.buffer(s).order(ByteOrder.LITTLE_ENDIAN).getLong((int) (address - s.address())))
                .orElse(null);
    }

    @Override
    public Long read32(long address) {
        return stored(address, 4).map(s -> (long) elf.buffer(s).order(ByteOrder.LITTLE_ENDIAN).getInt((int) (address - s.address())))
                .orElse(null);
    }

    @Override
    public boolean isCode(long address) {
        return elf.sectionContaining(address).map(Section::isExecutable).orElse(false);
    }

    @Override
    public boolean isWritable(long address) {
        return elf.sectionContaining(address).map(s -> (s.flags() & Section.SHF_WRITE) != 0).orElse(false);
    }

    @Override
    public boolean hasRelocations() {
        return hasRelocations;
    }

    @Override
    public boolean hasPcRelativeRelocation(long address) {
        return pcRelocated.contains(address);
    }

    @Override
    public boolean hasRelocation(long address) {
        return relocated.contains(address);
    }

    @Override
    public long tableLimit(long address) {
        long end = elf.sectionContaining(address).map(Section::endAddress).orElse(address);
        Long object = sizedData.get(address);
        return object != null ? Math.min(end, object) : end;
    }

    @Override
    public boolean isRelatedFragment(long function, long target) {
        Optional<Function> f = elf.functionContaining(function);
        Optional<Function> g = elf.functionContaining(target);
        if (f.isEmpty() || g.isEmpty() || f.get().address() != function) {
            return false;
        }
        String a = parent(f.get().name());
        String b = parent(g.get().name());
        return a.equals(b) && !f.get().name().equals(g.get().name());
    }

    private static String parent(String name) {
        Matcher m = FRAGMENT.matcher(name);
        return m.matches() ? m.group(1) : name;
    }

    @Override
    public long[] dataReferences(long start, long end) {
        if (!hasRelocations) {
            return new long[0]; // BOLT reads relocations only in relocation mode
        }
        int from = lowerBound(start);
        int to = lowerBound(end);
        long[] out = Arrays.copyOfRange(references, from, to);
        return Arrays.stream(out).distinct().toArray();
    }

    private int lowerBound(long key) {
        int i = Arrays.binarySearch(references, key);
        if (i < 0) {
            return -i - 1;
        }
        while (i > 0 && references[i - 1] == key) {
            i--;
        }
        return i;
    }
}
