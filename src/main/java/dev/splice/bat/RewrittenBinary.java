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

    /** A function symbol: name, value, size, whether it is local, the FILE symbol before it. */
    public record Symbol(String name, long address, long size, boolean local, String file) {}

    /** One function as perf2bolt sees it: start, end of its max size, and its location name. */
    public record Function(String name, long address, long end) {}

    private final boolean riscv;
    private final List<Section> sections;
    private final long[] starts;
    private final Function[] functions;

    public RewrittenBinary(boolean riscv, List<Section> sections, List<Symbol> symbols) {
        this.riscv = riscv;
        this.sections = List.copyOf(sections);
        List<Symbol> sorted = new ArrayList<>(symbols);
        sorted.removeIf(s -> sectionOf(s.address()) == null);
        // Stable by address; the first symbol at an address names the function, a global first.
        sorted.sort(Comparator.comparingLong(Symbol::address).thenComparing(s -> s.local()));
        Map<String, Integer> seen = new HashMap<>();
        List<Symbol> kept = new ArrayList<>();
        long coveredEnd = Long.MIN_VALUE;
        for (Symbol sym : sorted) {
            if (!kept.isEmpty() && kept.get(kept.size() - 1).address() == sym.address()) {
                continue; // an alias
            }
            if (sym.address() < coveredEnd) {
                continue; // a symbol inside a function: a secondary entry point, not a function
            }
            kept.add(sym);
            coveredEnd = sym.address() + sym.size();
        }
        List<Function> out = new ArrayList<>();
        for (int i = 0; i < kept.size(); i++) {
            Symbol sym = kept.get(i);
            Section section = sectionOf(sym.address());
            long end = section.address() + section.size();
            if (i + 1 < kept.size() && kept.get(i + 1).address() < end) {
                end = kept.get(i + 1).address();
            }
            out.add(new Function(locationName(sym, seen), sym.address(), Math.max(end, sym.address() + sym.size())));
        }
        functions = out.toArray(new Function[0]);
        starts = new long[functions.length];
        for (int i = 0; i < functions.length; i++) {
            starts[i] = functions[i].address();
        }
    }

    private static String locationName(Symbol s, Map<String, Integer> seen) {
        if (!s.local()) {
            return s.name();
        }
        String base = s.file() == null || s.file().isEmpty() ? s.name() : s.name() + "/" + s.file();
        int n = seen.merge(base, 1, Integer::sum);
        return base + "/" + n;
    }

    private Section sectionOf(long address) {
        for (Section s : sections) {
            if (s.size() > 0 && address >= s.address() && address - s.address() < s.size()) {
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
            if (s.isFunction() && s.isDefinedInSection()) {
                symbols.add(new Symbol(s.name(), s.value(), s.size(), s.isLocal(), s.isLocal() ? file : null));
            }
        }
        return new RewrittenBinary(elf.isRiscV(), sections, symbols);
    }

    public boolean isRiscV() {
        return riscv;
    }

    public List<Function> functions() {
        return Arrays.asList(functions);
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
