package dev.splice.cfg.x86;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.LongList;
import dev.splice.cfg.LandingPads;
import dev.splice.cfg.ControlFlowGraph;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.profile.NotSimpleFunctions;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * X86Cfg's block starts against llvm-bolt-22 --print-cfg (the buildCFG perf2bolt runs too), for
 * every function BOLT builds a CFG for: the block starts and, per block, whether it falls through to
 * the next (the next block is one of its printed successors). Entry points (direct branches and
 * calls from other functions, function symbols inside a function) are found here for now; they
 * belong in RewrittenBinary.
 */
class X86CfgTest {
    private static final Pattern ADDRESS = Pattern.compile("^\\s+Address\\s+: 0x([0-9a-f]+)");
    private static final Pattern SIZE = Pattern.compile("^\\s+Size\\s+: 0x([0-9a-f]+)");
    private static final Pattern BLOCK = Pattern.compile("^(\\.\\S+) \\(\\d+ instructions");
    private static final Pattern INSTRUCTION = Pattern.compile("^\\s+([0-9a-f]{8}): \\t(.*)$");
    private static final Pattern SUCCESSORS = Pattern.compile("^\\s+Successors: (.*)$");

    @Test
    void blocksAreThoseOfLlvmBolt(@TempDir Path dir) {
        List<Path> programs;
        try (Stream<Path> files = Files.list(TestPrograms.dir().resolve("x86_64"))) {
            programs = files.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int checked = 0;
        List<String> mismatches = new ArrayList<>();
        for (Path p : programs) {
            checked += compare(p, boltCfg(p, dir), mismatches);
        }
        // The same sources linked without --emit-relocs: BOLT's non-relocation mode, which is how
        // perf2bolt reads a BOLTed binary (it has no relocations of code).
        List<Path> sources = new ArrayList<>();
        for (String glob : new String[] {"tests/programs/*.{c,cpp}", "tests/programs/x86_64/*.S"}) {
            Path d = TestPrograms.root().resolve(glob.substring(0, glob.lastIndexOf('/')));
            try (var files = Files.newDirectoryStream(d, glob.substring(glob.lastIndexOf('/') + 1))) {
                files.forEach(sources::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        sources.sort(null);
        for (Path source : sources) {
            String name = source.getFileName().toString();
            Path bare = dir.resolve(name.substring(0, name.lastIndexOf('.')) + ".norelocs");
            Tools.run(name.endsWith(".cpp") ? "g++" : "gcc", "-O2", "-g0", "-no-pie", "-fno-pie", "-o", bare.toString(),
                    source.toString()).checked("compiling " + name);
            checked += compare(bare, boltCfg(bare, dir), mismatches);
        }
        assertTrue(checked > 20, "only " + checked + " functions");
        assertEquals(List.of(), mismatches.subList(0, Math.min(20, mismatches.size())),
                mismatches.size() + " mismatches in " + checked + " functions");
    }

    /** Static C++ builds, made once for the class: with and without --emit-relocs. */
    @TempDir
    static Path shared;
    private static Path staticRelocs;
    private static Path staticPlain;

    @BeforeAll
    static void buildStatic() {
        staticRelocs = shared.resolve("exceptions.static.relocs");
        staticPlain = shared.resolve("exceptions.static");
        Path source = TestPrograms.root().resolve("tests/programs/exceptions.cpp");
        Tools.run("g++", "-O2", "-g0", "-static", "-Wl,--emit-relocs", "-o", staticRelocs.toString(), source.toString())
                .checked("g++ -static");
        Tools.run("g++", "-O2", "-g0", "-static", "-o", staticPlain.toString(), source.toString()).checked("g++ -static");
    }

    /**
     * A static C++ build with relocations (glibc, libstdc++, libgcc's unwinder: over 1,700
     * functions with jump tables of every kind, computed gotos, notrack jumps, cold fragments,
     * locks, traps) against llvm-bolt-22's CFGs.
     */
    @Test
    void staticBuildBlocksAreThoseOfLlvmBolt(@TempDir Path dir) {
        List<String> mismatches = new ArrayList<>();
        int checked = compare(staticRelocs, boltCfg(staticRelocs, dir), mismatches);
        assertTrue(checked > 1500, "only " + checked + " functions");
        assertEquals(List.of(), mismatches.subList(0, Math.min(20, mismatches.size())),
                mismatches.size() + " mismatches in " + checked + " functions");
    }

    /**
     * The fall-through edges perf2bolt-22 writes for pre-aggregated F records, in the static build
     * without relocations (non-relocation mode, as perf2bolt reads a BOLTed binary), against
     * ControlFlowGraph.fallthroughs on X86Cfg's CFG. Per function: a record from each block into the next
     * one (so every block's fall-through flag is checked), a record from a random instruction to a
     * later one, and where Splice has no CFG one across the whole function (perf2bolt must write
     * nothing). A function's records all have the same count, a prime of its own, so that each
     * aggregated edge (from, to, count) names its function.
     */
    @Test
    void staticBuildFallthroughsAreThoseOfPerf2bolt(@TempDir Path dir) throws IOException {
        fallthroughsAreThoseOfPerf2bolt(staticPlain, dir);
    }

    /** As above in relocation mode (data-referenced labels, tables into cold fragments). */
    @Test
    void relocatedStaticBuildFallthroughsAreThoseOfPerf2bolt(@TempDir Path dir) throws IOException {
        fallthroughsAreThoseOfPerf2bolt(staticRelocs, dir);
    }

    private static void fallthroughsAreThoseOfPerf2bolt(Path program, Path dir) throws IOException {
        ElfFile elf = ElfFile.read(program);
        X86Binary binary = X86Binary.of(elf);
        Map<Long, TreeSet<Integer>> entries = entries(elf);
        Map<Long, long[]> pads = LandingPads.of(elf);
        java.util.Set<Long> notSimple = NotSimpleFunctions.of(elf);
        java.util.Random random = new java.util.Random(11);
        StringBuilder records = new StringBuilder();
        Map<String, Long> ours = new TreeMap<>();
        Map<Long, String> functionOf = new TreeMap<>();
        java.math.BigInteger prime = java.math.BigInteger.valueOf(100_000);
        int crossings = 0;
        for (Function f : elf.functions()) {
            Section s = f.section();
            if (f.size() <= 0 || !s.isExecutable()) {
                continue;
            }
            byte[] bytes = elf.contents(s);
            int base = (int) (f.address() - s.address());
            List<Integer> instructions = new ArrayList<>();
            for (int pc = 0; pc < f.size(); ) {
                X86Lengths.Insn insn = X86Lengths.decode(bytes, base + pc, base + (int) f.size());
                if (insn == null) {
                    break;
                }
                instructions.add(pc);
                pc += insn.length();
            }
            int[] padOffsets = Arrays.stream(pads.getOrDefault(f.address(), new long[0]))
                    .filter(a -> a > f.address() && a - f.address() < f.size())
                    .mapToInt(a -> (int) (a - f.address())).toArray();
            ControlFlowGraph cfg = notSimple.contains(f.address()) ? null : X86Cfg.of(bytes, base, (int) f.size(), f.address(),
                    binary, entries.getOrDefault(f.address(), new TreeSet<>()).stream().mapToInt(Integer::intValue).toArray(),
                    padOffsets);
            prime = prime.nextProbablePrime();
            long count = prime.longValue();
            functionOf.put(count, f.name());
            List<int[]> ranges = new ArrayList<>();
            if (cfg == null) {
                ranges.add(new int[] {0, instructions.get(instructions.size() - 1)});
            } else {
                int[] starts = cfg.blockStarts();
                for (int b = 0; b + 1 < starts.length; b++) {
                    ranges.add(new int[] {starts[b], starts[b + 1]});
                }
                int from = instructions.get(random.nextInt(instructions.size()));
                List<Integer> later = instructions.stream().filter(x -> x >= from).toList();
                ranges.add(new int[] {from, later.get(random.nextInt(Math.min(later.size(), 60)))});
            }
            for (int[] r : ranges) {
                records.append(String.format("F %x %x %d%n", f.address() + r[0], f.address() + r[1], count));
                LongList out = new LongList();
                if (cfg != null && cfg.fallthroughs(r[0], r[1], false, false, out) > 0) {
                    crossings++;
                    for (int i = 0; i < out.size(); i += 2) {
                        ours.merge(f.address() + " " + Long.toHexString(out.get(i)) + " " + Long.toHexString(out.get(i + 1)),
                                count, Long::sum);
                    }
                }
            }
        }
        Path profile = dir.resolve("profile.pa");
        Path fdata = dir.resolve("profile.fdata");
        Files.writeString(profile, records);
        Tools.run("perf2bolt-22", program.toString(), "-p", profile.toString(), "--pa", "-o", fdata.toString())
                .checked("perf2bolt-22");
        TreeSet<String> theirs = new TreeSet<>();
        for (String line : Files.readAllLines(fdata)) {
            String[] w = line.split(" ");
            if (w.length == 8 && w[0].equals("1") && w[3].equals("1") && w[1].equals(w[4])) {
                theirs.add(w[2] + " " + w[5] + " " + w[7]); // from to count, within one function
            }
        }
        TreeSet<String> expected = new TreeSet<>();
        ours.forEach((edge, c) -> expected.add(edge.substring(edge.indexOf(' ') + 1) + " " + c));
        assertTrue(crossings > 10_000, "only " + crossings + " records cross blocks");
        TreeSet<String> onlyOurs = new TreeSet<>(expected);
        onlyOurs.removeAll(theirs);
        TreeSet<String> onlyTheirs = new TreeSet<>(theirs);
        onlyTheirs.removeAll(expected);
        // The count is a multiple of the function's prime.
        java.util.function.Function<String, String> named = e -> {
            long c = Long.parseLong(e.substring(e.lastIndexOf(' ') + 1));
            return functionOf.entrySet().stream().filter(x -> c % x.getKey() == 0).map(Map.Entry::getValue)
                    .findFirst().orElse("?") + ": " + e;
        };
        assertEquals(List.of(), onlyOurs.stream().limit(20).map(named).toList(), "edges only Splice writes (from to count)");
        assertEquals(List.of(), onlyTheirs.stream().limit(20).map(named).toList(), "edges only perf2bolt-22 writes (from to count)");
    }

    /**
     * Jump-table targets are labels, not entry points (BOLT): a trace from outside that starts at
     * one right after a call is taken as the call's return, so it covers the call block's
     * fall-through edge; landing pads and entries are not moved back.
     */
    @Test
    void jumpTableTargetsAreLabelsNotEntries() {
        long address = 0x401000;
        long table = 0x402000;
        byte[] code = {
            (byte) 0xff, 0x24, (byte) 0xc5, 0x00, 0x20, 0x40, 0x00, // 0: jmp *0x402000(,%rax,8)
            (byte) 0xe8, 0x00, 0x10, 0x00, 0x00,                    // 7: call 0x40200c (outside)
            (byte) 0x90,                                           // 12: nop (a table target)
            (byte) 0xc3,                                           // 13: ret
        };
        X86Cfg.Memory memory = a -> a == table ? address + 7 : a == table + 8 ? address + 12 : a == table + 16 ? 0L : null;
        ControlFlowGraph cfg = X86Cfg.of(code, 0, code.length, address, memory, new int[0], new int[0]);
        assertEquals(List.of(0, 7, 12), Arrays.stream(cfg.blockStarts()).boxed().toList());
        LongList out = new LongList();
        assertEquals(1, cfg.fallthroughs(12, 13, true, false, out));
        assertEquals(List.of(7L, 12L), List.of(out.get(0), out.get(1)));
        ControlFlowGraph entered = X86Cfg.of(code, 0, code.length, address, memory, new int[] {12}, new int[0]);
        assertEquals(0, entered.fallthroughs(12, 13, true, false, new LongList()));
    }

    /** Arbitrary bytes and memory: a CFG or null, never an exception. */
    @Test
    void arbitraryBytesNeverThrow() {
        java.util.Random random = new java.util.Random(7);
        for (int n = 0; n < 20_000; n++) {
            byte[] code = new byte[1 + random.nextInt(300)];
            random.nextBytes(code);
            if (n % 2 == 0) {
                // Make indirect jumps, PIC table loads and %rip references likely.
                for (int i = 0; i + 3 < code.length; i += 1 + random.nextInt(12)) {
                    switch (random.nextInt(4)) {
                        case 0 -> { code[i] = (byte) 0xff; code[i + 1] = (byte) (0xe0 | random.nextInt(8)); }
                        case 1 -> { code[i] = 0x48; code[i + 1] = (byte) 0x8d; code[i + 2] = (byte) (0x05 | random.nextInt(8) << 3); }
                        case 2 -> { code[i] = 0x48; code[i + 1] = 0x63; code[i + 2] = (byte) random.nextInt(0x40); }
                        default -> { code[i] = 0x48; code[i + 1] = 0x01; code[i + 2] = (byte) (0xc0 | random.nextInt(0x40)); }
                    }
                }
            }
            long seed = random.nextLong();
            boolean relocations = random.nextBoolean();
            long address = 0x1000;
            X86Cfg.Memory memory = new X86Cfg.Memory() {
                @Override
                public Long read64(long a) {
                    long h = (a * 0x9E3779B97F4A7C15L) ^ seed;
                    return (h & 7) == 0 ? null : (h & 1) == 0 ? address + Math.floorMod(h >> 8, 400) : h >> 16;
                }

                @Override
                public boolean hasRelocations() {
                    return relocations;
                }

                @Override
                public boolean hasPcRelativeRelocation(long a) {
                    return ((a ^ seed) & 3) != 0;
                }

                @Override
                public boolean hasRelocation(long a) {
                    return ((a ^ seed) & 5) != 0;
                }

                @Override
                public long[] dataReferences(long start, long end) {
                    return new long[] {start + 3, end - 1, end + 5, start - 2};
                }
            };
            int[] entries = {random.nextInt(code.length + 5) - 2};
            int[] pads = {random.nextInt(code.length + 5) - 2};
            int base = random.nextInt(code.length);
            X86Cfg.of(code, base, code.length - base, address, memory, entries, pads);
        }
    }

    /** One block of BOLT's --print-cfg output: name, printed offsets of its instructions, successors. */
    record BoltBlock(String name, List<Integer> printed, List<String> text, List<String> successors) {}

    /** BOLT's blocks of one function, in the printed (here: input) layout. */
    record BoltFunction(long address, long size, List<BoltBlock> blocks) {}

    /** The functions of an llvm-bolt-22 --print-cfg output, by address. */
    static Map<Long, BoltFunction> parse(String output) {
        Map<Long, BoltFunction> out = new TreeMap<>();
        long address = -1;
        long size = 0;
        List<BoltBlock> blocks = null;
        BoltBlock block = null;
        for (String line : output.split("\n")) {
            Matcher m;
            if (line.startsWith("Binary Function ")) {
                blocks = new ArrayList<>();
                block = null;
            } else if (blocks == null) {
                continue;
            } else if (block == null && (m = ADDRESS.matcher(line)).find()) {
                address = Long.parseUnsignedLong(m.group(1), 16);
            } else if (block == null && (m = SIZE.matcher(line)).find()) {
                size = Long.parseUnsignedLong(m.group(1), 16);
            } else if ((m = BLOCK.matcher(line)).find()) {
                block = new BoltBlock(m.group(1), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                blocks.add(block);
            } else if (block != null && (m = INSTRUCTION.matcher(line)).find()) {
                if (!m.group(2).startsWith("!")) { // pseudo-instructions (!CFI) take no bytes
                    block.printed().add(Integer.parseInt(m.group(1), 16));
                    block.text().add(m.group(2));
                }
            } else if (block != null && (m = SUCCESSORS.matcher(line)).find()) {
                block.successors().addAll(List.of(m.group(1).trim().split(",\\s*")));
            } else if (line.startsWith("End of Function")) {
                out.put(address, new BoltFunction(address, size, blocks));
                blocks = null;
            }
        }
        return out;
    }

    /**
     * The input offsets of the instructions BOLT printed for a function, in print order, into
     * {@code real}; returns null, or why they do not line up with the decoded instructions. BOLT prints a running sum of the sizes of
     * its own encodings, not the input offsets: a notrack (3E) jmp *%reg counts one byte short (every
     * later offset of the function is printed one less; the edges perf2bolt writes use the real
     * offsets, docs/x86cfg-notes.md), redundant prefixes are dropped (66 66 66 64 48 8b: 9 bytes,
     * not 12), and a short jump to another function counts 5 bytes. So the k-th printed instruction
     * is matched with the k-th decoded one, and they line up if there are as many of both,
     * each pair is of the same kind (from the printed mnemonic), and a non-branch's printed size is
     * its decoded length less at most its prefix bytes.
     */
    static String inputOffsets(List<Integer> printed, List<String> text, byte[] code, int base, int size, int[] real,
                               boolean conditionalTailCallMoved) {
        int pc = 0;
        for (int i = 0; i < printed.size(); i++) {
            X86Lengths.Insn insn = pc < size ? X86Lengths.decode(code, base + pc, base + size) : null;
            if (insn == null || !sameKind(insn.kind(), text.get(i))) {
                return "at 0x" + Integer.toHexString(pc) + " decoded " + (insn == null ? "nothing" : insn.kind())
                        + ", BOLT printed " + text.get(i);
            }
            real[i] = pc;
            int printedSize = i + 1 < printed.size() ? printed.get(i + 1) - printed.get(i) : -1;
            boolean branch = switch (insn.kind()) {
                case JUMP, CONDITIONAL, CALL, INDIRECT_JUMP, INDIRECT_CALL -> true;
                default -> false;
            };
            if (printedSize >= 0 && !branch
                    && (printedSize > insn.length() || printedSize < insn.length() - prefixBytes(code, base + pc))) {
                return "at 0x" + Integer.toHexString(pc) + " decoded " + insn.length() + " bytes, BOLT printed "
                        + printedSize + " for " + text.get(i);
            }
            pc += insn.length();
        }
        if (pc < size && conditionalTailCallMoved) {
            // A conditional tail call that ends the function: BOLT prints it only as its .LTC block.
            X86Lengths.Insn last = X86Lengths.decode(code, base + pc, base + size);
            if (last != null && last.kind() == X86Lengths.Kind.CONDITIONAL && pc + last.length() == size) {
                pc = size;
            }
        }
        return pc == size ? null : "BOLT printed " + printed.size() + " instructions, up to 0x" + Integer.toHexString(pc);
    }

    /** Whether a printed instruction (mnemonic and operands) is of the decoded kind. */
    private static boolean sameKind(X86Lengths.Kind kind, String text) {
        String[] words = text.trim().split("\\s+");
        int w = 0;
        while (w + 1 < words.length && words[w].matches("rep|repz|repe|repne|repnz|lock|notrack|bnd|data16|data32|addr32|cs|ds|es|ss|fs|gs")) {
            w++;
        }
        String m = words[w];
        X86Lengths.Kind expected = switch (m) {
            // jmpl: an indirect jump BOLT made a tail call
            case "jmp", "jmpq", "jmpl" -> text.contains("*") ? X86Lengths.Kind.INDIRECT_JUMP : X86Lengths.Kind.JUMP;
            case "callq", "call", "calll" -> text.contains("*") ? X86Lengths.Kind.INDIRECT_CALL : X86Lengths.Kind.CALL;
            case "retq", "ret" -> X86Lengths.Kind.RETURN;
            case "ud2", "hlt" -> X86Lengths.Kind.TRAP;
            case "int3" -> X86Lengths.Kind.BREAKPOINT;
            case "xbegin" -> X86Lengths.Kind.CONDITIONAL;
            default -> m.startsWith("j") ? X86Lengths.Kind.CONDITIONAL : X86Lengths.Kind.OTHER;
        };
        return kind == expected;
    }

    /** The number of legacy prefix and REX bytes the instruction at {@code at} starts with. */
    private static int prefixBytes(byte[] b, int at) {
        int n = 0;
        while (at + n < b.length && isPrefix(b[at + n] & 0xff)) {
            n++;
        }
        return n;
    }

    private static boolean isPrefix(int x) {
        return x == 0x26 || x == 0x2e || x == 0x36 || x == 0x3e || x == 0x64 || x == 0x65 || x == 0x66 || x == 0x67
                || x == 0xf0 || x == 0xf2 || x == 0xf3 || (x & 0xf0) == 0x40;
    }

    static int compare(Path program, String boltOutput, List<String> mismatches) {
        Map<Long, BoltFunction> bolt = parse(boltOutput);
        ElfFile elf = ElfFile.read(program);
        Map<Long, long[]> pads = LandingPads.of(elf);
        Map<Long, TreeSet<Integer>> entries = entries(elf);
        // llvm-bolt-22 runs without strict mode, which perf2bolt turns on with relocations (that
        // difference is checked against perf2bolt itself: *FallthroughsAreThoseOfPerf2bolt).
        X86Binary binary = X86Binary.nonStrict(elf);
        // Functions perf2bolt's function discovery already finds not simple (no CFG; the caller
        // of X86Cfg does not ask for one): in conflict with an FDE, bad padding, split functions
        // in non-relocation mode.
        java.util.Set<Long> notSimple = NotSimpleFunctions.of(elf);
        int checked = 0;
        for (Function f : elf.functions()) {
            BoltFunction theirs = bolt.get(f.address());
            Section s = f.section();
            if (f.size() <= 0 || !s.isExecutable()) {
                continue;
            }
            // Without relocations llvm-bolt-22 also leaves functions entered in their middle alone
            // (memcpy/memset variants), but perf2bolt-22 builds their CFGs and writes their edges
            // (staticBuildFallthroughsAreThoseOfPerf2bolt), so they are not compared here.
            boolean multiEntry = !binary.hasRelocations() && entries.containsKey(f.address());
            if (theirs == null && !notSimple.contains(f.address()) && !multiEntry) {
                // BOLT built no CFG (it prints none): Splice must not have one either.
                int[] pads0 = Arrays.stream(pads.getOrDefault(f.address(), new long[0]))
                        .filter(a -> a > f.address() && a - f.address() < f.size())
                        .mapToInt(a -> (int) (a - f.address())).toArray();
                ControlFlowGraph ours = X86Cfg.of(elf.contents(s), (int) (f.address() - s.address()), (int) f.size(), f.address(),
                        binary, entries.getOrDefault(f.address(), new TreeSet<>()).stream().mapToInt(Integer::intValue).toArray(),
                        pads0);
                if (ours != null) {
                    mismatches.add(program.getFileName() + " " + f.name() + ": BOLT has no CFG, Splice has one");
                }
                continue;
            }
            if (theirs == null) {
                continue;
            }
            checked++;
            String where = program.getFileName() + " " + f.name();
            byte[] bytes = elf.contents(s);
            int base = (int) (f.address() - s.address());
            // BOLT's blocks in input order, without the blocks it appends past the end (a
            // conditional tail call's ".LTC" block, added after buildCFG).
            List<BoltBlock> blocks = theirs.blocks().stream().filter(b -> !b.name().startsWith(".LTC")).toList();
            List<Integer> printed = new ArrayList<>();
            List<String> text = new ArrayList<>();
            blocks.forEach(b -> printed.addAll(b.printed()));
            blocks.forEach(b -> text.addAll(b.text()));
            int[] real = new int[printed.size()];
            String misfit = inputOffsets(printed, text, bytes, base, (int) f.size(), real,
                    blocks.size() < theirs.blocks().size());
            if (misfit != null) {
                mismatches.add(where + ": BOLT's instructions do not line up with the decoded ones: " + misfit);
                continue;
            }
            List<Integer> expectedStarts = new ArrayList<>();
            List<Boolean> expectedFalls = new ArrayList<>();
            int k = 0;
            for (int i = 0; i < blocks.size(); i++) {
                BoltBlock b = blocks.get(i);
                if (b.printed().isEmpty()) {
                    continue;
                }
                expectedStarts.add(real[k]);
                k += b.printed().size();
                // A block falls through when the next block in the layout is one of its successors.
                expectedFalls.add(i + 1 < blocks.size() && b.successors().contains(blocks.get(i + 1).name()));
            }
            int[] padOffsets = Arrays.stream(pads.getOrDefault(f.address(), new long[0]))
                    .filter(a -> a > f.address() && a - f.address() < f.size())
                    .mapToInt(a -> (int) (a - f.address())).toArray();
            ControlFlowGraph cfg = X86Cfg.of(bytes, base, (int) f.size(), f.address(), binary,
                    entries.getOrDefault(f.address(), new TreeSet<>()).stream().mapToInt(Integer::intValue).toArray(),
                    padOffsets);
            if (cfg == null) {
                mismatches.add(where + ": no CFG, BOLT has " + expectedStarts.size() + " blocks");
                continue;
            }
            List<Integer> got = Arrays.stream(cfg.blockStarts()).boxed().toList();
            if (!got.equals(expectedStarts)) {
                TreeSet<Integer> onlyOurs = new TreeSet<>(got);
                onlyOurs.removeAll(expectedStarts);
                TreeSet<Integer> onlyTheirs = new TreeSet<>(expectedStarts);
                onlyTheirs.removeAll(got);
                mismatches.add(where + ": blocks only Splice starts " + onlyOurs + ", only BOLT " + onlyTheirs);
                continue;
            }
            // The last block's flag is never used (no block follows it) and BOLT gives it none.
            List<Integer> wrongFalls = new ArrayList<>();
            for (int b = 0; b + 1 < got.size(); b++) {
                if (cfg.fallsThrough(b) != expectedFalls.get(b)) {
                    wrongFalls.add(got.get(b));
                }
            }
            if (!wrongFalls.isEmpty()) {
                mismatches.add(where + ": fall-through differs from BOLT's after the blocks at " + wrongFalls);
            }
        }
        return checked;
    }

    /** llvm-bolt-22's --print-cfg output for a program (one thread: threaded output interleaves). */
    static String boltCfg(Path program, Path dir) {
        Tools.Result r = Tools.run("llvm-bolt-22", program.toString(), "-o", dir.resolve("out").toString(),
                "--lite=0", "--print-cfg", "--thread-count=1");
        assertEquals(0, r.exitCode(), r.stderr());
        return r.stdout();
    }

    /**
     * Per function address, the offsets (not 0) that direct branches and calls of other functions
     * target: BOLT makes them entry points. (To move into RewrittenBinary for x86, as for RISC-V.)
     */
    static Map<Long, TreeSet<Integer>> entries(ElfFile elf) {
        Map<Long, TreeSet<Integer>> out = new TreeMap<>();
        // A function symbol inside another function is a secondary entry point of it.
        for (Function f : elf.functions()) {
            for (Function g : elf.functions()) {
                if (g.address() > f.address() && g.address() < f.endAddress() && g.section() == f.section()) {
                    out.computeIfAbsent(f.address(), x -> new TreeSet<>()).add((int) (g.address() - f.address()));
                }
            }
        }
        for (Function f : elf.functions()) {
            Section s = f.section();
            if (f.size() <= 0 || !s.isExecutable()) {
                continue;
            }
            X86Cfg.externalTargets(elf.contents(s), (int) (f.address() - s.address()), (int) f.size(), f.address(),
                    target -> elf.functionContaining(target).filter(g -> g.address() != target)
                            .ifPresent(g -> out.computeIfAbsent(g.address(), x -> new TreeSet<>())
                                    .add((int) (target - g.address()))));
        }
        return out;
    }
}
