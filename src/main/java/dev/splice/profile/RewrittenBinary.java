package dev.splice.profile;

import dev.splice.bat.BatTables;
import dev.splice.cfg.LandingPads;
import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.cfg.riscv.RiscVDataReferences;
import dev.splice.cfg.x86.X86Binary;
import dev.splice.cfg.x86.X86Cfg;
import dev.splice.elf.unwind.EhFrameRanges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rewritten (BOLTed) binary as profile translation sees it, the way perf2bolt's BinaryContext
 * does: its functions as {@link FunctionDiscovery} finds them (start, size, and "max size", which
 * takes in alignment padding; named as BOLT names locations), and the executable bytes, to recognise
 * return instructions.
 */
final class RewrittenBinary {
    /** A section: name, address, size, executable flag, and its bytes (null when not loaded). */
    record CodeSection(String name, long address, long size, boolean executable, byte[] bytes) {}

    /**
     * One function as perf2bolt sees it: its location name, start, size, and the end of its max size
     * (up to the next function or the end of its section).
     */
    record BoltFunction(String name, long address, long size, long end) {}

    private final boolean riscv;
    private final List<CodeSection> sections;
    private final long[] starts;
    private final BoltFunction[] functions;
    private final java.util.Set<Long> notSimple;
    private final CodeFacts facts;

    /**
     * What BOLT's disassembly of functions without tables depends on besides their bytes.
     * {@code landingPads}: per function start (its FDE's), its landing pads' addresses;
     * {@code secondaryEntries}: per function start, the addresses inside it BOLT makes entry points
     * (symbols, targets of relative relocations);
     * {@code memory}: the binary's contents, where x86-64 jump tables are read;
     * {@code riscVDataReferences}: sorted, the code addresses data relocations name in a RISC-V
     * binary with relocations; {@code jumpsPastEnd}: sorted, see {@link #isJumpPastEnd};
     * {@code padded}: sorted, the functions padding followed when BOLT disassembled them.
     */
    private record CodeFacts(Map<Long, long[]> landingPads, Map<Long, java.util.TreeSet<Long>> secondaryEntries,
                             X86Cfg.Memory memory, long[] riscVDataReferences, long[] jumpsPastEnd, long[] padded) {
        static final CodeFacts NONE = new CodeFacts(Map.of(), Map.of(), address -> null, new long[0], new long[0], new long[0]);
    }

    /**
     * The binary from its sections and its functions (as {@link FunctionDiscovery} finds them);
     * {@code notSimple}: addresses of functions perf2bolt builds no CFG for.
     */
    RewrittenBinary(boolean riscv, List<CodeSection> sections, List<BoltFunction> functionList, java.util.Set<Long> notSimple) {
        this(riscv, sections, functionList, notSimple, CodeFacts.NONE);
    }

    /** As above, with what the disassembly of functions without tables depends on. */
    private RewrittenBinary(boolean riscv, List<CodeSection> sections, List<BoltFunction> functionList, java.util.Set<Long> notSimple,
                            CodeFacts facts) {
        this.facts = facts;
        this.riscv = riscv;
        this.notSimple = notSimple;
        this.sections = List.copyOf(sections);
        List<BoltFunction> sorted = new ArrayList<>(functionList);
        sorted.sort(Comparator.comparingLong(BoltFunction::address));
        functions = sorted.toArray(new BoltFunction[0]);
        starts = new long[functions.length];
        for (int i = 0; i < functions.length; i++) {
            starts[i] = functions[i].address();
        }
    }

    private CodeSection lastSection;

    private CodeSection sectionOf(long address) {
        CodeSection last = lastSection;
        if (last != null && address >= last.address() && address - last.address() < last.size()) {
            return last;
        }
        for (CodeSection s : sections) {
            if (s.size() > 0 && address >= s.address() && address - s.address() < s.size()) {
                lastSection = s;
                return s;
            }
        }
        return null;
    }

    /**
     * The rewritten binary from its ELF file: allocated sections, and the functions perf2bolt finds
     * from the symbol table (the dynamic one if it is stripped), PLT entries and .eh_frame.
     */
    public static RewrittenBinary of(dev.splice.elf.ElfFile elf) {
        return of(elf, null);
    }

    /** As {@link #of(dev.splice.elf.ElfFile)}; the tables do not change which functions perf2bolt sees. */
    public static RewrittenBinary of(dev.splice.elf.ElfFile elf, BatTables bat) {
        return of(elf, bat, null);
    }

    /**
     * As {@link #of(dev.splice.elf.ElfFile, BatTables)}, and with the input binary (the one BOLT
     * optimized; null: none) a function without a table that perf2bolt names by an internal name
     * ({@code __BOLT_FDE_FUNCat...}, or a section's name such as {@code .bolt.org.text/1}) takes the
     * name of the input's function at the same address, when that one has a real name and the same
     * bytes (code BOLT left in place): same location, a name llvm-bolt finds in the input.
     */
    public static RewrittenBinary of(dev.splice.elf.ElfFile elf, BatTables bat, dev.splice.elf.ElfFile input) {
        if (!elf.isRiscV() && !elf.isX86_64()) {
            // The CFGs, returns and entry points below decode machine code of these two only.
            throw new dev.splice.base.BadInputException(elf.name() + ": ELF machine " + elf.header().machine()
                    + " is neither RISC-V (243) nor x86-64 (62); Splice translates profiles of those two");
        }
        if (elf.isRiscV()) {
            // The instruction table loads while the functions are found; RISC-V decoding needs it only after.
            Thread table = new Thread(RiscVCfg::loadInstructionTable, "splice-isa-table");
            table.setDaemon(true);
            table.start();
        }
        List<CodeSection> sections = new ArrayList<>();
        for (dev.splice.elf.Section s : elf.sections()) {
            if (!s.isAllocated() || s.size() == 0) {
                continue;
            }
            boolean exec = s.isExecutable();
            sections.add(new CodeSection(s.name(), s.address(), s.size(), exec, exec && !s.isNobits() ? elf.contents(s) : null));
        }
        FunctionDiscovery.Result found = FunctionDiscovery.discover(elf, EhFrameRanges.of(elf));
        List<BoltFunction> functions = found.functions();
        long[] padded = padded(functions);
        long[] jumpsPastEnd = elf.isRiscV() ? riscVJumpsPastEnd(sections, functions, padded, bat) : new long[0];
        functions = withoutReferencedPadding(elf.isRiscV(), sections, functions, found.notSimple(), bat);
        if (input != null) {
            functions = namedAfterInput(elf, bat, functions, input);
        }
        return new RewrittenBinary(elf.isRiscV(), sections, functions, found.notSimple(), new CodeFacts(LandingPads.of(elf),
                found.secondaryEntries(), elf.isRiscV() ? address -> null : X86Binary.of(elf),
                elf.isRiscV() ? RiscVDataReferences.of(elf) : new long[0], jumpsPastEnd, padded));
    }

    /**
     * The addresses (sorted) of the functions padding follows (end before max end) as BOLT
     * disassembles them, before any padding is found to hold an object.
     */
    private static long[] padded(List<BoltFunction> functions) {
        return functions.stream().filter(f -> f.size() > 0 && f.end() > f.address() + f.size())
                .mapToLong(BoltFunction::address).sorted().toArray();
    }

    /**
     * RISC-V: the addresses of the direct branches, jumps and calls in functions without tables whose
     * target is their function's end while padding follows it (before any padding is found to hold
     * an object): BOLT's "jump past end", which it replaces with a nop; perf2bolt-22 then ignores
     * branch records from there (x86-64 keeps them; checked with tiny programs, docs/bat.md).
     */
    private static long[] riscVJumpsPastEnd(List<CodeSection> sections, List<BoltFunction> functions, long[] padded, BatTables bat) {
        RewrittenBinary probe = new RewrittenBinary(true, sections, functions, java.util.Set.of());
        java.util.List<Long> out = new ArrayList<>();
        for (BoltFunction f : functions) {
            if ((bat != null && bat.isBatFunction(f.address())) || Arrays.binarySearch(padded, f.address()) < 0) {
                continue;
            }
            CodeSection s = probe.sectionOf(f.address());
            if (s == null || !s.executable() || s.bytes() == null || f.address() + f.size() > s.address() + s.size()) {
                continue;
            }
            RiscVCfg.jumpsPastEnd(s.bytes(), (int) (f.address() - s.address()), (int) f.size(), pc -> out.add(f.address() + pc));
        }
        return out.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** Whether the instruction at this address is one BOLT replaced as a "jump past end" (RISC-V). */
    public boolean isJumpPastEnd(long address) {
        return Arrays.binarySearch(facts.jumpsPastEnd(), address) >= 0;
    }

    /** The direct targets that leave {@code code[base, base + size)} at {@code address}, either ISA. */
    private static void externalTargets(boolean riscv, byte[] code, int base, int size, long address,
                                        java.util.function.LongConsumer out) {
        if (riscv) {
            RiscVCfg.externalTargets(code, base, size, address, out);
        } else {
            X86Cfg.externalTargets(code, base, size, address, out);
        }
    }

    /**
     * BOLT's processInterproceduralReferences: where code without tables branches or calls to an
     * address in the padding of a function (past its size, within its max size), BOLT takes it for
     * an object and the (simple) function ends at its size.
     */
    private static List<BoltFunction> withoutReferencedPadding(boolean riscv, List<CodeSection> sections, List<BoltFunction> functions,
                                                           java.util.Set<Long> notSimple, BatTables bat) {
        RewrittenBinary probe = new RewrittenBinary(riscv, sections, functions, notSimple);
        java.util.Set<Integer> shrink = new java.util.HashSet<>();
        for (int i = 0; i < functions.size(); i++) {
            BoltFunction f = functions.get(i);
            if ((bat != null && bat.isBatFunction(f.address())) || f.size() <= 0) {
                continue;
            }
            CodeSection s = probe.sectionOf(f.address());
            if (s == null || !s.executable() || s.bytes() == null) {
                continue;
            }
            externalTargets(riscv, s.bytes(), (int) (f.address() - s.address()),
                    (int) Math.min(f.size(), s.address() + s.size() - f.address()), f.address(), target -> {
                        int t = probe.indexContaining(target);
                        if (t >= 0 && target - functions.get(t).address() >= functions.get(t).size()
                                && !notSimple.contains(functions.get(t).address())) {
                            shrink.add(t);
                        }
                    });
        }
        if (shrink.isEmpty()) {
            return functions;
        }
        List<BoltFunction> out = new ArrayList<>(functions);
        for (int t : shrink) {
            BoltFunction f = out.get(t);
            out.set(t, new BoltFunction(f.name(), f.address(), f.size(), f.address() + f.size()));
        }
        return out;
    }

    private static List<BoltFunction> namedAfterInput(dev.splice.elf.ElfFile elf, BatTables bat, List<BoltFunction> functions,
                                                  dev.splice.elf.ElfFile input) {
        checkSameBuild(elf, input);
        java.util.Set<String> sectionNames = new java.util.HashSet<>();
        elf.sections().forEach(s -> sectionNames.add(s.name()));
        input.sections().forEach(s -> sectionNames.add(s.name()));
        Map<Long, BoltFunction> inputFunctions = new HashMap<>();
        for (BoltFunction f : FunctionDiscovery.of(input, EhFrameRanges.of(input))) {
            inputFunctions.put(f.address(), f);
        }
        List<BoltFunction> out = new ArrayList<>(functions.size());
        for (BoltFunction f : functions) {
            BoltFunction original = inputFunctions.get(f.address());
            boolean rename = original != null && isInternal(f.name(), sectionNames) && !isInternal(original.name(), sectionNames)
                    && (bat == null || !bat.isBatFunction(f.address())) && sameBytes(elf, input, f.address(), f.size());
            out.add(rename ? new BoltFunction(original.name(), f.address(), f.size(), f.end()) : f);
        }
        return out;
    }

    /** perf2bolt's names for code without a symbol: FDE functions and section symbols ("name/N"). */
    private static boolean isInternal(String name, java.util.Set<String> sectionNames) {
        if (name.startsWith("__BOLT_")) {
            return true;
        }
        int slash = name.lastIndexOf('/');
        return slash > 0 && name.substring(slash + 1).matches("[0-9]+") && sectionNames.contains(name.substring(0, slash));
    }

    /** Whether both files hold the same bytes at the address; false where either has none or the size is forged. */
    static boolean sameBytes(dev.splice.elf.ElfFile a, dev.splice.elf.ElfFile b, long address, long size) {
        java.nio.ByteBuffer x = bytesAt(a, address, size);
        java.nio.ByteBuffer y = bytesAt(b, address, size);
        return x != null && y != null && x.equals(y);
    }

    /**
     * A view of {@code size} bytes at {@code address}, or null where the file has none. A view, not
     * a copy: a forged symbol table names a function per symbol, and copying its section each time
     * allocated gigabytes for a 32 KB input. Sizes are from the file: checked without overflow.
     */
    private static java.nio.ByteBuffer bytesAt(dev.splice.elf.ElfFile elf, long address, long size) {
        dev.splice.elf.Section s = elf.sectionContaining(address).orElse(null);
        if (s == null || s.isNobits() || size < 0 || s.fileSize() != s.size()) {
            return null;
        }
        long from = address - s.address();
        if (from < 0 || from > s.size() || size > s.size() - from) {
            return null;
        }
        java.nio.ByteBuffer all = elf.buffer(s);
        return all.slice((int) from, (int) size);
    }

    /** BOLT flips the last bit of the build-id: the output's id must be the input's, so changed. */
    private static void checkSameBuild(dev.splice.elf.ElfFile output, dev.splice.elf.ElfFile input) {
        byte[] out = output.buildId().orElse(null);
        byte[] in = input.buildId().orElse(null);
        if (out == null || in == null) {
            return;
        }
        byte[] flipped = in.clone();
        flipped[flipped.length - 1] ^= 1;
        if (!java.util.Arrays.equals(out, flipped) && !java.util.Arrays.equals(out, in)) {
            throw new dev.splice.base.BadInputException(input.name() + ": not the input of " + output.name()
                    + " (build-ids " + java.util.HexFormat.of().formatHex(in) + " and " + java.util.HexFormat.of().formatHex(out) + " do not match)");
        }
    }

    private static final int R_X86_64_GLOB_DAT = 6;
    private static final int R_RISCV_JUMP_SLOT = 5;

    /**
     * RISC-V PLT entries as functions "name@PLT": after the 32-byte header, 16-byte entries
     * {@code auipc t3, hi; ld t3, lo(t3); jalr t1, t3; nop} loading a slot relocated against a
     * dynamic symbol.
     */
    private static List<BoltFunction> riscVPltEntries(dev.splice.elf.ElfFile elf, Map<Long, String> slots) {
        List<BoltFunction> entries = new ArrayList<>();
        dev.splice.elf.Section plt = elf.section(".plt").orElse(null);
        if (plt == null || plt.isNobits()) {
            return entries;
        }
        byte[] b = elf.contents(plt);
        for (int entry = 32; entry + 16 <= b.length; entry += 16) {
            java.util.OptionalLong slot = RiscVCfg.pltSlot(b, entry, plt.address() + entry);
            String callee = slot.isPresent() ? slots.get(slot.getAsLong()) : null;
            if (callee != null && !callee.isEmpty()) {
                entries.add(new BoltFunction(callee + "@PLT", plt.address() + entry, 16, plt.address() + entry + 16));
            }
        }
        return entries;
    }
    private static final int R_X86_64_JUMP_SLOT = 7;

    /**
     * x86-64 PLT entries as functions "name@PLT": each 16-byte entry of .plt, .plt.sec and .plt.got (8-byte in PIE binaries)
     * that jumps through a GOT slot (jmp *disp(%rip)) relocated against a dynamic symbol.
     */
    static List<BoltFunction> pltEntries(dev.splice.elf.ElfFile elf,
                                     java.util.function.Function<dev.splice.elf.Symbol, String> calleeName) {
        Map<Long, String> slots = new HashMap<>();
        List<dev.splice.elf.Symbol> dynsym = elf.dynamicSymbols();
        boolean riscv = elf.isRiscV();
        for (dev.splice.elf.RelocationSection rs : elf.relocations()) {
            for (dev.splice.elf.Relocation r : rs.relocations()) {
                boolean slot = riscv ? r.type() == R_RISCV_JUMP_SLOT : r.type() == R_X86_64_JUMP_SLOT || r.type() == R_X86_64_GLOB_DAT;
                if (slot && r.symbolIndex() > 0 && r.symbolIndex() < dynsym.size()) {
                    slots.put(r.offset(), calleeName.apply(dynsym.get(r.symbolIndex())));
                }
            }
        }
        if (riscv) {
            return riscVPltEntries(elf, slots);
        }
        List<BoltFunction> entries = new ArrayList<>();
        for (String name : List.of(".plt", ".plt.sec", ".plt.got")) {
            dev.splice.elf.Section plt = elf.section(name).orElse(null);
            if (plt == null || plt.isNobits()) {
                continue;
            }
            byte[] b = elf.contents(plt);
            // 16-byte entries, except where the linker says 8 (.plt.got of PIE binaries: jmp *slot; xchg %ax,%ax).
            int size = name.equals(".plt.got") && plt.entrySize() == 8 ? 8 : 16;
            for (int entry = 0; entry + size <= b.length; entry += size) {
                for (int i = entry; i + 6 <= entry + size; i++) {
                    if ((b[i] & 0xff) == 0xff && (b[i + 1] & 0xff) == 0x25) {
                        int disp = (b[i + 2] & 0xff) | (b[i + 3] & 0xff) << 8 | (b[i + 4] & 0xff) << 16 | b[i + 5] << 24;
                        long slot = plt.address() + i + 6 + disp;
                        String callee = slots.get(slot);
                        if (callee != null && !callee.isEmpty()) {
                            entries.add(new BoltFunction(callee + "@PLT", plt.address() + entry, size, plt.address() + entry + size));
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

    public List<BoltFunction> functions() {
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
    public BoltFunction functionContaining(long address) {
        int i = Arrays.binarySearch(starts, address);
        if (i < 0) {
            i = -i - 2;
        }
        if (i < 0) {
            return null;
        }
        BoltFunction f = functions[i];
        return address < f.end() ? f : null;
    }

    /** The function starting exactly at the address, or null. */
    public BoltFunction functionAt(long address) {
        int i = Arrays.binarySearch(starts, address);
        return i < 0 ? null : functions[i];
    }

    /** True if the instruction at this address is a return (as BOLT's MCPlusBuilder::isReturn says). */
    public boolean isReturn(long address) {
        BoltFunction f = functionContaining(address);
        if (f == null || address - f.address() >= f.size()) {
            return false; // perf2bolt only decodes instructions inside a function's own bytes
        }
        CodeSection s = sectionOf(address);
        if (s == null || !s.executable() || s.bytes() == null) {
            return false;
        }
        int at = (int) (address - s.address());
        byte[] b = s.bytes();
        if (riscv) {
            return RiscVCfg.isReturn(b, at);
        }
        // x86-64: ret / ret imm16, after legacy prefixes (rep, repne/bnd, operand size).
        int i = at;
        while (i < b.length && i - at < 4 && ((b[i] & 0xff) == 0xf3 || (b[i] & 0xff) == 0xf2 || (b[i] & 0xff) == 0x66)) {
            i++;
        }
        return i < b.length && ((b[i] & 0xff) == 0xc3 || (b[i] & 0xff) == 0xc2);
    }

    /**
     * The CFG perf2bolt builds for a function (by index) that has no translation table, from its
     * bytes up to its size; null where it builds none.
     */
    ControlFlowGraph cfg(int index, int[] entries) {
        BoltFunction f = functions[index];
        if (notSimple.contains(f.address()) || f.size() <= 0) {
            return null;
        }
        CodeSection s = sectionOf(f.address());
        if (s == null || !s.executable() || s.bytes() == null) {
            return null;
        }
        int size = (int) Math.min(f.size(), s.address() + s.size() - f.address());
        long[] pads = facts.landingPads().getOrDefault(f.address(), new long[0]);
        int[] padOffsets = Arrays.stream(pads).filter(a -> a > f.address() && a - f.address() < size)
                .mapToInt(a -> (int) (a - f.address())).toArray();
        int base = (int) (f.address() - s.address());
        boolean pastEndIsNop = Arrays.binarySearch(facts.padded(), f.address()) >= 0;
        long[] references = facts.riscVDataReferences();
        // A RISC-V binary with data references has relocations: perf2bolt reads it in strict mode.
        return riscv ? RiscVCfg.of(s.bytes(), base, size, entries, padOffsets,
                        RiscVDataReferences.within(references, f.address(), size), references.length > 0, pastEndIsNop)
                : X86Cfg.of(s.bytes(), base, size, f.address(), facts.memory(), entries, padOffsets, pastEndIsNop);
    }

    /**
     * The entry points BOLT registers: symbols inside a function, targets of relative relocations
     * (a PIE's computed-goto labels), and the targets that direct
     * branches and calls in the given functions make in other functions; per function index, the
     * offsets (not 0) where code elsewhere enters it.
     */
    Map<Integer, List<Integer>> externalEntries(java.util.function.IntPredicate scanned) {
        Map<Integer, java.util.TreeSet<Integer>> found = new HashMap<>();
        facts.secondaryEntries().forEach((start, addresses) -> {
            int t = indexContaining(start);
            if (t >= 0 && functions[t].address() == start) {
                for (long a : addresses) {
                    found.computeIfAbsent(t, k -> new java.util.TreeSet<>()).add((int) (a - start));
                }
            }
        });
        for (int i = 0; i < functions.length; i++) {
            BoltFunction f = functions[i];
            if (!scanned.test(i) || f.size() <= 0) {
                continue;
            }
            CodeSection s = sectionOf(f.address());
            if (s == null || !s.executable() || s.bytes() == null) {
                continue;
            }
            int self = i;
            externalTargets(riscv, s.bytes(), (int) (f.address() - s.address()),
                    (int) Math.min(f.size(), s.address() + s.size() - f.address()), f.address(), target -> {
                        int t = indexContaining(target);
                        if (t >= 0 && t != self && target != functions[t].address() && target - functions[t].address() < functions[t].size()) {
                            found.computeIfAbsent(t, k -> new java.util.TreeSet<>()).add((int) (target - functions[t].address()));
                        }
                    });
        }
        Map<Integer, List<Integer>> out = new HashMap<>();
        found.forEach((k, v) -> out.put(k, new ArrayList<>(v)));
        return out;
    }

    /** True if the address lies in a section of the binary (perf2bolt's containsAddress). */
    public boolean containsAddress(long address) {
        return sectionOf(address) != null;
    }
}
