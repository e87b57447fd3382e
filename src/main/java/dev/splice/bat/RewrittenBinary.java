package dev.splice.bat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rewritten (BOLTed) binary as profile translation sees it, the way perf2bolt's BinaryContext
 * does: functions from the FUNC symbols, each covering its bytes up to the next function in its
 * section (BOLT's "max size", which takes in alignment padding), named as BOLT names locations
 * (a local symbol gets "name/file/N" after the FILE symbol that precedes it), and the executable
 * bytes, to recognise return instructions.
 */
public final class RewrittenBinary {
    /** A section: name, address, size, executable flag, and its bytes (null when not loaded). */
    public record Section(String name, long address, long size, boolean executable, byte[] bytes) {}

    /**
     * A symbol (in symbol table order): name, value, size, whether it is a function, whether it is
     * local, and the name of the FILE symbol before it (null or empty: none).
     */
    public record Symbol(String name, long address, long size, boolean function, boolean local, String file) {}

    /**
     * One function as perf2bolt sees it: its location name, start, size, and the end of its max size
     * (up to the next function or the end of its section).
     */
    public record Function(String name, long address, long size, long end) {}

    private final boolean riscv;
    private final List<Section> sections;
    private final long[] starts;
    private final Function[] functions;

    public RewrittenBinary(boolean riscv, List<Section> sections, List<Symbol> symbols) {
        this(riscv, sections, symbols, List.of());
    }

    /**
     * With extra functions that have no symbol (PLT entries, named "callee@PLT" as BOLT names them):
     * they take part in lookups with their given name.
     */
    public RewrittenBinary(boolean riscv, List<Section> sections, List<Symbol> symbols, List<Function> extraFunctions) {
        this(riscv, sections, symbols, extraFunctions, List.of());
    }

    /**
     * With the start addresses of the fragments of the translation tables: each one without a FUNC
     * symbol still starts a function, named as BOLT names the first other symbol there (a local label
     * ".L..." becomes "PG.L.../N"), else "__BAT_FRAGMENT_at_ADDR".
     */
    public RewrittenBinary(boolean riscv, List<Section> sections, List<Symbol> symbols, List<Function> extraFunctions,
                           List<Long> fragmentStarts) {
        this.riscv = riscv;
        this.sections = List.copyOf(sections);
        // BOLT numbers local names in address order: "name/N" per name, "name/file/N" per name and
        // file (see docs/bat.md); the symbol table order breaks ties.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < symbols.size(); i++) {
            if (!symbols.get(i).name().isEmpty() && sectionOf(symbols.get(i).address()) != null) {
                order.add(i);
            }
        }
        order.sort(Comparator.comparingLong(i -> symbols.get(i).address()));
        Map<String, Integer> counters = new HashMap<>();
        String[] uniqueNames = new String[symbols.size()];
        String[] fileNames = new String[symbols.size()];
        for (int i : order) {
            Symbol sym = symbols.get(i);
            if (!sym.local()) {
                uniqueNames[i] = sym.name();
                continue;
            }
            uniqueNames[i] = sym.name() + "/" + counters.merge(sym.name(), 1, Integer::sum);
            if (sym.function() && sym.file() != null && !sym.file().isEmpty()) {
                String prefix = sym.name() + "/" + sym.file();
                fileNames[i] = prefix + "/" + counters.merge(prefix, 1, Integer::sum);
            }
        }
        // Functions: FUNC symbols by address; aliases join the first; a symbol inside a function is a
        // secondary entry point, not a function.
        List<Integer> funcs = new ArrayList<>();
        for (int i : order) {
            if (symbols.get(i).function()) {
                funcs.add(i);
            }
        }
        List<Function> out = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        long coveredEnd = Long.MIN_VALUE;
        for (int k = 0; k < funcs.size(); ) {
            Symbol first = symbols.get(funcs.get(k));
            String name = uniqueNames[funcs.get(k)];
            String fileName = null;
            long size = first.size();
            int j = k;
            for (; j < funcs.size() && symbols.get(funcs.get(j)).address() == first.address(); j++) {
                if (fileName == null) {
                    fileName = fileNames[funcs.get(j)];
                }
                size = Math.max(size, symbols.get(funcs.get(j)).size());
            }
            k = j;
            if (first.address() < coveredEnd) {
                continue;
            }
            coveredEnd = first.address() + size;
            out.add(new Function(fileName != null ? fileName : name, first.address(), size, 0));
        }
        for (Function extra : extraFunctions) {
            out.add(extra);
        }
        java.util.Set<Long> known = new java.util.HashSet<>();
        for (Function f : out) {
            known.add(f.address());
        }
        Map<Long, String> labels = new HashMap<>();
        for (int i : order) {
            Symbol sym = symbols.get(i);
            if (!sym.function() && !sym.name().startsWith("$")) {
                labels.putIfAbsent(sym.address(), sym.name().startsWith(".L") ? "PG" + uniqueNames[i] : uniqueNames[i]);
            }
        }
        for (long start : fragmentStarts) {
            if (known.add(start) && sectionOf(start) != null) {
                out.add(new Function(labels.getOrDefault(start, "__BAT_FRAGMENT_at_" + Long.toHexString(start)), start, 0, -1));
            }
        }
        out.sort(Comparator.comparingLong(Function::address));
        for (int i = 0; i < out.size(); i++) {
            Function f = out.get(i);
            if (f.end() > 0) {
                continue; // PLT entries come with their extent
            }
            Section section = sectionOf(f.address());
            long end = section.address() + section.size();
            if (i + 1 < out.size() && out.get(i + 1).address() < end) {
                end = out.get(i + 1).address();
            }
            long size = f.end() < 0 ? end - f.address() : f.size();
            out.set(i, new Function(f.name(), f.address(), size, Math.max(end, f.address() + size)));
        }
        functions = out.toArray(new Function[0]);
        starts = new long[functions.length];
        for (int i = 0; i < functions.length; i++) {
            starts[i] = functions[i].address();
        }
    }

    private Section lastSection;

    private Section sectionOf(long address) {
        Section last = lastSection;
        if (last != null && address >= last.address() && address - last.address() < last.size()) {
            return last;
        }
        for (Section s : sections) {
            if (s.size() > 0 && address >= s.address() && address - s.address() < s.size()) {
                lastSection = s;
                return s;
            }
        }
        return null;
    }

    /**
     * The rewritten binary from its ELF file: allocated sections, and the FUNC symbols of the symbol
     * table (the dynamic one if it is stripped), each local one with the FILE symbol before it.
     */
    public static RewrittenBinary of(dev.splice.elf.ElfFile elf) {
        return of(elf, null);
    }

    /**
     * As {@link #of(dev.splice.elf.ElfFile)}, and every fragment of the tables starts a function even
     * where BOLT left no FUNC symbol (on RISC-V it leaves NOTYPE ones, e.g. for load_gp): named after
     * a non-mapping symbol at that address ("name/N" for a local), else "__BAT_FRAGMENT_at_ADDR".
     */
    public static RewrittenBinary of(dev.splice.elf.ElfFile elf, BatTables bat) {
        List<Section> sections = new ArrayList<>();
        for (dev.splice.elf.Section s : elf.sections()) {
            if (!s.isAllocated() || s.size() == 0) {
                continue;
            }
            boolean exec = s.isExecutable();
            sections.add(new Section(s.name(), s.address(), s.size(), exec, exec && !s.isNobits() ? elf.contents(s) : null));
        }
        List<dev.splice.elf.Symbol> table = elf.symbols().isEmpty() ? elf.dynamicSymbols() : elf.symbols();
        List<Symbol> symbols = new ArrayList<>();
        String file = null;
        for (dev.splice.elf.Symbol s : table) {
            if (s.type() == dev.splice.elf.Symbol.STT_FILE) {
                file = s.name();
                continue;
            }
            if (s.type() != dev.splice.elf.Symbol.STT_SECTION && s.isDefinedInSection()) {
                symbols.add(new Symbol(s.name(), s.value(), s.size(), s.isFunction(), s.isLocal(), s.isLocal() ? file : null));
            }
        }
        List<Long> fragments = new ArrayList<>();
        if (bat != null) {
            bat.functions().forEach(f -> fragments.add(f.address()));
            bat.coldFragments().forEach(c -> fragments.add(c.address()));
        }
        return new RewrittenBinary(elf.isRiscV(), sections, symbols, elf.isX86_64() ? pltEntries(elf) : List.of(), fragments);
    }

    private static final int R_X86_64_GLOB_DAT = 6;
    private static final int R_X86_64_JUMP_SLOT = 7;

    /**
     * x86-64 PLT entries as functions "name@PLT": each 16-byte entry of .plt, .plt.sec and .plt.got
     * that jumps through a GOT slot (jmp *disp(%rip)) relocated against a dynamic symbol.
     */
    static List<Function> pltEntries(dev.splice.elf.ElfFile elf) {
        Map<Long, String> slots = new HashMap<>();
        List<dev.splice.elf.Symbol> dynsym = elf.dynamicSymbols();
        for (dev.splice.elf.RelocationSection rs : elf.relocations()) {
            for (dev.splice.elf.Relocation r : rs.relocations()) {
                if ((r.type() == R_X86_64_JUMP_SLOT || r.type() == R_X86_64_GLOB_DAT)
                        && r.symbolIndex() > 0 && r.symbolIndex() < dynsym.size()) {
                    slots.put(r.offset(), dynsym.get(r.symbolIndex()).name());
                }
            }
        }
        List<Function> entries = new ArrayList<>();
        for (String name : List.of(".plt", ".plt.sec", ".plt.got")) {
            dev.splice.elf.Section plt = elf.section(name).orElse(null);
            if (plt == null || plt.isNobits()) {
                continue;
            }
            byte[] b = elf.contents(plt);
            for (int entry = 0; entry + 16 <= b.length; entry += 16) {
                for (int i = entry; i + 6 <= entry + 16; i++) {
                    if ((b[i] & 0xff) == 0xff && (b[i + 1] & 0xff) == 0x25) {
                        int disp = (b[i + 2] & 0xff) | (b[i + 3] & 0xff) << 8 | (b[i + 4] & 0xff) << 16 | b[i + 5] << 24;
                        long slot = plt.address() + i + 6 + disp;
                        String callee = slots.get(slot);
                        if (callee != null && !callee.isEmpty()) {
                            entries.add(new Function(callee + "@PLT", plt.address() + entry, 16, plt.address() + entry + 16));
                        }
                        break;
                    }
                }
            }
        }
        return entries;
    }

    public boolean isRiscV() {
        return riscv;
    }

    public List<Function> functions() {
        return Arrays.asList(functions);
    }

    /** The index (in {@link #functions()}) of the function containing the address, or -1. */
    public int indexContaining(long address) {
        int i = Arrays.binarySearch(starts, address);
        if (i < 0) {
            i = -i - 2;
        }
        return i >= 0 && address < functions[i].end() ? i : -1;
    }

    /** The function whose max-size range contains the address, or null (perf2bolt's lookup). */
    public Function functionContaining(long address) {
        int i = Arrays.binarySearch(starts, address);
        if (i < 0) {
            i = -i - 2;
        }
        if (i < 0) {
            return null;
        }
        Function f = functions[i];
        return address < f.end() ? f : null;
    }

    /** The function starting exactly at the address, or null. */
    public Function functionAt(long address) {
        int i = Arrays.binarySearch(starts, address);
        return i < 0 ? null : functions[i];
    }

    /** True if the instruction at this address is a return (as BOLT's MCPlusBuilder::isReturn says). */
    public boolean isReturn(long address) {
        Function f = functionContaining(address);
        if (f == null || address - f.address() >= f.size()) {
            return false; // perf2bolt only decodes instructions inside a function's own bytes
        }
        Section s = sectionOf(address);
        if (s == null || !s.executable() || s.bytes() == null) {
            return false;
        }
        int at = (int) (address - s.address());
        byte[] b = s.bytes();
        if (riscv) {
            if (at + 2 > b.length) {
                return false;
            }
            int half = (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
            if ((half & 3) != 3) {
                // c.jr rs1: funct4=1000, rs2=0, op=10; rs1 in {ra, t0}
                if ((half & 0xf07f) == 0x8002) {
                    int rs1 = (half >>> 7) & 31;
                    return rs1 == 1 || rs1 == 5;
                }
                return false;
            }
            if (at + 4 > b.length) {
                return false;
            }
            int word = half | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
            // jalr x0, imm(rs1) with rs1 in {ra, t0}
            if ((word & 0x7fff) == 0x0067) {
                int rs1 = (word >>> 15) & 31;
                return rs1 == 1 || rs1 == 5;
            }
            return false;
        }
        // x86-64: ret / ret imm16, after legacy prefixes (rep, repne/bnd, operand size).
        int i = at;
        while (i < b.length && i - at < 4 && ((b[i] & 0xff) == 0xf3 || (b[i] & 0xff) == 0xf2 || (b[i] & 0xff) == 0x66)) {
            i++;
        }
        return i < b.length && ((b[i] & 0xff) == 0xc3 || (b[i] & 0xff) == 0xc2);
    }

    /** True if the address lies in a section of the binary (perf2bolt's containsAddress). */
    public boolean containsAddress(long address) {
        return sectionOf(address) != null;
    }
}
