package dev.splice.profile;

import dev.splice.bat.BatTables;
import dev.splice.cfg.RelativeRelocationTargets;
import dev.splice.cfg.x86.X86Padding;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds the functions of a binary the way perf2bolt's BinaryContext does before it reads a profile
 * (RewriteInstance::discoverFileObjects, adjustFunctionBoundaries and, on x86-64, the padding check):
 * which address ranges are functions, where each one starts, how far it reaches, and its name.
 * Profile locations are "function offset", so these must be perf2bolt's functions exactly, including
 * those it makes from section symbols ({@code .init/1}), labels and FDEs without symbols
 * ({@code __BOLT_FDE_FUNCat...}) in code BOLT left in place. See docs/bat.md.
 */
final class FunctionDiscovery {
    /** A function being discovered: its names (the first one creates it), start, size and max size. */
    private static final class Fn {
        final List<String> names = new ArrayList<>();
        final long address;
        final Section section;
        long size;
        long maxSize = -1;
        boolean pseudo;
        boolean simple = true;
        boolean fragment;

        Fn(String name, long address, long size, Section section) {
            names.add(name);
            this.address = address;
            this.size = size;
            this.section = section;
        }

        boolean contains(long pc) {
            return pc >= address && pc - address < size;
        }
    }

    /** One symbol as BOLT sorts and reads it, with its position in the symbol table. */
    private record Sym(Symbol symbol, String name, String file, int order) {
        long address() {
            return symbol.value();
        }
    }

    private final ElfFile elf;
    private final boolean riscv;
    private final List<Section> sections = new ArrayList<>();
    private final TreeMap<Long, Fn> functions = new TreeMap<>();
    // BOLT's FileSymRefs: the symbols considered, by address, in processing order.
    private final TreeMap<Long, List<Sym>> fileSymRefs = new TreeMap<>();
    private final Map<String, Integer> uniquifier = new HashMap<>();
    private int anonymous;
    // Secondary entry points: addresses of symbols inside a function that are not valid in its scope,
    // and of relative relocations' targets inside one.
    private final java.util.TreeSet<Long> secondaryEntries = new java.util.TreeSet<>();

    private FunctionDiscovery(ElfFile elf) {
        this.elf = elf;
        this.riscv = elf.isRiscV();
        for (Section s : elf.sections()) {
            if (s.isAllocated() && s.size() > 0) {
                sections.add(s);
            }
        }
    }

    /** The functions of the binary, as perf2bolt sees them, in address order. */
    static List<RewrittenBinary.BoltFunction> of(ElfFile elf, TreeMap<Long, Long> fdes) {
        return discover(elf, fdes).functions();
    }

    /**
     * The functions, the addresses of those perf2bolt finds not simple (it builds no CFG for them),
     * and the addresses inside functions that BOLT makes secondary entry points (symbols, relative
     * relocations' targets): function start to the entry addresses.
     */
    public record Result(List<RewrittenBinary.BoltFunction> functions, java.util.Set<Long> notSimple,
                  Map<Long, java.util.TreeSet<Long>> secondaryEntries) {}

    public static Result discover(ElfFile elf, TreeMap<Long, Long> fdes) {
        FunctionDiscovery d = new FunctionDiscovery(elf);
        d.fromSymbols(fdes);
        d.relativeRelocationEntries();
        d.pltEntries();
        d.fromFdes(fdes);
        d.adjustBoundaries();
        // Without relocations against code, BOLT works in non-relocation mode: split functions and
        // their parents are not simple, and functions with bad padding only reach to their size;
        // with relocations, functions with bad padding are ignored.
        boolean relocations = elf.section(".rela.text").isPresent();
        if (!relocations) {
            d.markFragmentsNotSimple();
        }
        if (elf.isX86_64()) {
            d.checkPadding(relocations);
        }
        // BOLT skips _init in static executables (its address may also be a GOT data reference).
        boolean batMode = BatTables.enabledFor(elf);
        boolean isStatic = elf.segments().stream().noneMatch(p -> p.type() == dev.splice.elf.Segment.PT_INTERP
                || p.type() == dev.splice.elf.Segment.PT_DYNAMIC);
        List<RewrittenBinary.BoltFunction> out = new ArrayList<>();
        java.util.Set<Long> notSimple = new java.util.HashSet<>();
        for (Fn f : d.functions.values()) {
            out.add(new RewrittenBinary.BoltFunction(batMode ? locationName(f.names) : f.names.get(0), f.address, f.size,
                    f.address + f.maxSize));
            if (!f.simple || f.pseudo || (isStatic && f.names.contains("_init"))) {
                notSimple.add(f.address);
            }
        }
        Map<Long, java.util.TreeSet<Long>> entries = new HashMap<>();
        for (long address : d.secondaryEntries) {
            Map.Entry<Long, Fn> owner = d.functions.floorEntry(address);
            if (owner != null && owner.getKey() != address && owner.getValue().contains(address)) {
                entries.computeIfAbsent(owner.getKey(), k -> new java.util.TreeSet<>()).add(address);
            }
        }
        return new Result(out, notSimple, entries);
    }

    /** perf2bolt's location name in BAT mode: the first "name/file/N" alias, else the first name. */
    private static String locationName(List<String> names) {
        for (String n : names) {
            int slash = n.indexOf('/');
            if (slash >= 0 && n.indexOf('/', slash + 1) >= 0) {
                return n;
            }
        }
        return names.get(0);
    }

    private Section sectionOf(long address) {
        for (Section s : sections) {
            if (s.contains(address)) {
                return s;
            }
        }
        return null;
    }

    private boolean isMarker(Symbol s, String name) {
        if (!riscv || s.size() != 0 || s.type() != Symbol.STT_NOTYPE) {
            return false;
        }
        return name.startsWith("$x") || name.equals("$d") || name.startsWith("$d.");
    }

    private String uniquify(String name) {
        return name + "/" + uniquifier.merge(name, 1, Integer::sum);
    }

    /**
     * BOLT's processDynamicRelocations, between the functions from symbols and those from PLT
     * entries and FDEs: an address a relative relocation stores that lies inside one of the
     * functions so far (within its size), not at its start, is a secondary entry point of it.
     */
    private void relativeRelocationEntries() {
        for (long address : RelativeRelocationTargets.of(elf)) {
            Map.Entry<Long, Fn> owner = functions.floorEntry(address);
            if (owner != null && owner.getKey() != address && owner.getValue().contains(address)) {
                secondaryEntries.add(address);
            }
        }
    }

    private void fromSymbols(TreeMap<Long, Long> fdes) {
        List<Symbol> table = elf.symbols().isEmpty() ? elf.dynamicSymbols() : elf.symbols();
        List<Sym> sorted = new ArrayList<>();
        String file = "";
        for (Symbol s : table) {
            if (s.type() == Symbol.STT_FILE) {
                if (!s.name().equals("ld-temp.o")) {
                    file = s.name();
                }
                continue;
            }
            boolean absolute = s.sectionIndex() == Section.SHN_ABS;
            if (!absolute && !s.isDefinedInSection()) {
                continue;
            }
            String name = s.name();
            if (!absolute) {
                if (s.sectionIndex() >= elf.sections().size()) {
                    continue; // a forged section index: no section to lie in
                }
                Section section = elf.section(s.sectionIndex());
                if (!section.isAllocated()) {
                    continue;
                }
                // BOLT ignores symbols that do not lie inside their section (sizes from the file: no overflow).
                if (Long.compareUnsigned(s.value() - section.address(), section.size()) > 0
                        || Long.compareUnsigned(s.size(), section.size() - (s.value() - section.address())) > 0) {
                    continue;
                }
                if (s.type() == Symbol.STT_SECTION) {
                    name = section.name();
                }
            }
            sorted.add(new Sym(s, name, s.isLocal() && !file.isEmpty() ? file : null, sorted.size()));
        }
        // BOLT's order: by address; markers first; functions before other symbols; section symbols last.
        sorted.sort(Comparator.comparingLong(Sym::address)
                .thenComparing((Sym a, Sym b) -> {
                    boolean am = isMarker(a.symbol(), a.name());
                    boolean bm = isMarker(b.symbol(), b.name());
                    if (am || bm) {
                        return am == bm ? 0 : am ? -1 : 1;
                    }
                    return Integer.compare(rank(a.symbol()), rank(b.symbol()));
                }));
        Fn previous = null;
        for (Sym sym : sorted) {
            Symbol s = sym.symbol();
            long address = s.value();
            if (isMarker(s, sym.name()) || address == 0 || sym.name().equals("__hot_start") || sym.name().equals("__hot_end")) {
                continue;
            }
            fileSymRefs.computeIfAbsent(address, a -> new ArrayList<>()).add(sym);
            Section home = s.sectionIndex() == Section.SHN_ABS || s.sectionIndex() >= elf.sections().size() ? null
                    : elf.section(s.sectionIndex());
            if (s.type() == Symbol.STT_SECTION && home != null && isPlt(home.name())) {
                continue;
            }
            String name = sym.name().startsWith(".L") ? "PG" + sym.name() : sym.name();
            String unique;
            String alternative = null;
            if (name.isEmpty()) {
                unique = "ANONYMOUS." + anonymous++;
            } else if (!s.isLocal()) {
                unique = name;
            } else {
                unique = uniquify(name);
                if (s.isFunction() && sym.file() != null) {
                    alternative = uniquify(name + "/" + sym.file());
                }
            }
            if (home == null || address == home.address() + home.size() || !home.isExecutable()) {
                continue; // absolute, at the end of its section, or not code: a name, not a function
            }
            if (previous != null && !isFunctionType(s)) {
                if (previous.contains(address) || (previous.size == 0 && validInScope(previous, sym))) {
                    continue; // a label inside the previous function
                }
            }
            if (previous != null && previous.contains(address) && previous.address != address) {
                if (!validInScope(previous, sym)) {
                    // A secondary entry point: BOLT drops it from the symbols that bound functions.
                    fileSymRefs.get(address).remove(sym);
                    secondaryEntries.add(address);
                }
                continue;
            }
            long size = s.size();
            boolean simple = true;
            Map.Entry<Long, Long> fde = fdes.ceilingEntry(address);
            if (fde != null && fde.getKey() != address) {
                Map.Entry<Long, Long> before = fdes.lowerEntry(address);
                if (before != null && address > before.getKey() && address - before.getKey() < before.getValue()) {
                    simple = false; // in conflict with an FDE
                }
            } else if (fde != null && fde.getValue() != size) {
                size = Math.max(size, fde.getValue());
            }
            Fn f = functions.get(address);
            if (f != null) {
                f.size = Math.max(f.size, size);
                f.names.add(unique);
            } else {
                Section section = sectionOf(address);
                if (section == null) {
                    continue;
                }
                f = new Fn(unique, address, size, section);
                f.simple = simple;
                functions.put(address, f);
            }
            if ((sym.name().contains(".cold") || sym.name().contains(".warm")) && FRAGMENT.matcher(sym.name()).find()) {
                f.fragment = true;
            }
            if (alternative != null) {
                f.names.add(alternative);
            }
            previous = f;
        }
    }

    private static int rank(Symbol s) {
        if (isFunctionType(s)) {
            return 0;
        }
        return s.type() == Symbol.STT_SECTION ? 2 : 1;
    }

    private static boolean isFunctionType(Symbol s) {
        return s.type() == Symbol.STT_FUNC || s.type() == Symbol.STT_GNU_IFUNC;
    }

    private boolean isPlt(String section) {
        return section.equals(".plt") || (!riscv && (section.equals(".plt.sec") || section.equals(".plt.got")));
    }

    /** BinaryFunction::isSymbolValidInScope: may this symbol sit inside the function's body? */
    private boolean validInScope(Fn f, Sym sym) {
        Symbol s = sym.symbol();
        if (!f.section.contains(s.value())) {
            return false;
        }
        if (s.size() == 0 && f.contains(s.value())) {
            return true;
        }
        return s.type() == Symbol.STT_NOTYPE && s.isLocal();
    }

    /** PLT entries ("callee@PLT") and a pseudo function at each PLT section start. */
    private void pltEntries() {
        // A PLT entry for a symbol the binary defines itself (a shared library's exported function)
        // takes the name BOLT registered first at that address (e.g. "fib.localalias/1@PLT").
        for (RewrittenBinary.BoltFunction entry : RewrittenBinary.pltEntries(elf, sym -> {
            Fn defined = sym.isDefinedInSection() ? functions.get(sym.value()) : null;
            return defined != null ? defined.names.get(0) : sym.name();
        })) {
            Fn f = functions.get(entry.address());
            if (f != null) {
                f.names.add(entry.name());
                continue;
            }
            f = new Fn(entry.name(), entry.address(), 0, sectionOf(entry.address()));
            functions.put(entry.address(), f);
        }
        for (Section s : sections) {
            if (isPlt(s.name()) && !functions.containsKey(s.address())) {
                Fn f = new Fn("__BOLT_PSEUDO_" + s.name(), s.address(), 0, s);
                f.pseudo = true;
                functions.put(s.address(), f);
            } else if (isPlt(s.name())) {
                functions.get(s.address()).pseudo = true;
            }
        }
    }

    // BOLT's name pattern of split function fragments (searched, not anchored).
    private static final java.util.regex.Pattern FRAGMENT = java.util.regex.Pattern.compile("(.*)\\.(cold|warm)(\\.[0-9]+)?");
    private static final java.util.regex.Pattern UNIQUIFIED = java.util.regex.Pattern.compile("/[0-9]+$");

    /**
     * BOLT's registerFragments in non-relocation mode: a fragment ("name.cold...") whose parent is
     * found by name, and that parent, are not simple (so their padding is not checked).
     */
    private void markFragmentsNotSimple() {
        Map<String, Fn> byName = new HashMap<>();
        for (Fn f : functions.values()) {
            for (String n : f.names) {
                byName.putIfAbsent(n, f);
            }
        }
        for (Fn f : functions.values()) {
            if (!f.fragment) {
                continue;
            }
            for (String n : f.names) {
                java.util.regex.Matcher m = FRAGMENT.matcher(UNIQUIFIED.matcher(n).replaceFirst(""));
                if (!m.find()) {
                    continue;
                }
                String parentName = m.group(1);
                Fn parent = byName.get(parentName);
                if (parent == null && uniquifier.getOrDefault(parentName, 0) == 1) {
                    parent = byName.get(parentName + "/1");
                }
                // Several local parents of that name: the one from the fragment's file (BOLT
                // disambiguates with FILE symbols), named "parent/file/N" like "name.cold/file/N".
                String rest = UNIQUIFIED.matcher(n).replaceFirst("").substring(m.end());
                if (parent == null && rest.startsWith("/") && uniquifier.getOrDefault(parentName + rest, 0) == 1) {
                    parent = byName.get(parentName + rest + "/1");
                }
                if (parent != null) {
                    f.simple = false;
                    parent.simple = false;
                }
            }
        }
    }

    /** Functions for FDEs that no function starts at or covers. */
    private void fromFdes(TreeMap<Long, Long> fdes) {
        for (Map.Entry<Long, Long> e : fdes.entrySet()) {
            long address = e.getKey();
            if (functions.containsKey(address)) {
                continue;
            }
            Map.Entry<Long, Fn> before = functions.floorEntry(address);
            if (before != null && before.getValue().contains(address)) {
                continue;
            }
            Section section = sectionOf(address);
            if (section == null) {
                continue;
            }
            functions.put(address, new Fn("__BOLT_FDE_FUNCat" + Long.toHexString(address), address, e.getValue(), section));
        }
    }

    /** Max sizes: up to the next function, the next symbol that cannot be inside, or the section end. */
    private void adjustBoundaries() {
        for (Fn f : functions.values()) {
            Long next = functions.higherKey(f.address);
            long limit = f.section.address() + f.section.size();
            boolean stopped = false;
            for (Map.Entry<Long, List<Sym>> e : fileSymRefs.tailMap(f.address, false).entrySet()) {
                for (Sym sym : e.getValue()) {
                    if ((next != null && e.getKey() >= next) || !validInScope(f, sym)) {
                        limit = Math.min(limit, e.getKey());
                        stopped = true;
                        break;
                    }
                }
                if (stopped) {
                    break;
                }
            }
            if (next != null) {
                limit = Math.min(limit, next);
            }
            long maxSize = limit - f.address;
            if (maxSize < f.size) {
                f.maxSize = f.size; // a symbol in the middle of the function: BOLT keeps its size
                f.simple = false;
                continue;
            }
            f.maxSize = maxSize;
            if (f.size == 0) {
                f.size = maxSize;
            }
        }
    }

    /**
     * x86-64: a function whose padding (between its size and max size) is not nops, int3, zeros or
     * jumps forward within it (BOLT's hasValidCodePadding) only reaches to its size without
     * relocations; with them, BOLT ignores the function ("invalid padding"): it is not simple.
     */
    private void checkPadding(boolean relocations) {
        for (Fn f : functions.values()) {
            if (f.pseudo || !f.simple || f.size == f.maxSize || !f.section.isExecutable() || f.section.isNobits()) {
                continue;
            }
            byte[] bytes = elf.contents(f.section);
            int base = (int) (f.address - f.section.address());
            if (!X86Padding.isValid(bytes, base, f.address, (int) f.size, (int) f.maxSize)) {
                if (relocations) {
                    f.simple = false;
                } else {
                    f.maxSize = f.size;
                }
            }
        }
    }
}
