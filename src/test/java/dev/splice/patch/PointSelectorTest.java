package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.cfg.LandingPads;
import dev.splice.elf.ElfFile;
import dev.splice.patch.ObjdumpCode.Func;
import dev.splice.patch.ObjdumpCode.Insn;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every spec kind on the static glibc (and libstdc++) test programs, against GNU objdump's view of
 * the same code: function boundaries from {@code objdump -t}, mnemonics and targets from
 * {@code objdump -d -M no-aliases}, and blocks, loop heads, exits and calls derived from them by
 * BOLT's rules (docs/cfg.md) with a brute-force dominance check, independent of Splice's decoder and CFG.
 */
class PointSelectorTest {
    private static final List<String> PROGRAMS = List.of("loops.relocs", "exceptions.relocs");
    private static final Set<String> CONDITIONAL = Set.of("beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez");

    private static List<Point> select(Path binary, String spec) {
        return PointSelector.of(ElfFile.read(binary)).select(PointSpec.parse(spec));
    }

    private static TreeSet<Long> addresses(List<Point> points) {
        return points.stream().map(Point::address).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void entryStarSelectsTheStartOfEveryFunctionObjdumpLists() {
        for (String program : PROGRAMS) {
            Path binary = TestPrograms.rv64(program);
            ObjdumpCode oracle = ObjdumpCode.of(binary);
            TreeSet<Long> expected = oracle.functions().stream().map(Func::address).collect(Collectors.toCollection(TreeSet::new));
            List<Point> points = select(binary, "entry:*");
            assertEquals(expected, addresses(points), program);
            assertEquals(points.size(), expected.size(), program + ": each function once");
            for (Point p : points) {
                assertEquals(PointKind.ENTRY, p.kind());
                assertEquals(0, p.offset());
                assertEquals(p.function(), p.location());
            }
        }
    }

    @Test
    void insnSelectsEveryInstructionWhoseMnemonicMatchesExactly() {
        for (String program : PROGRAMS) {
            Path binary = TestPrograms.rv64(program);
            ObjdumpCode oracle = ObjdumpCode.of(binary);
            for (String regex : List.of("c\\.sdsp", "jal", "jalr", "c\\.j", "c\\.(add|addi)", "beq|bne", "amo.*|lr\\..*|sc\\..*",
                    "mul.*", "fence.*", "c\\.[lf]d.*")) {
                Pattern p = Pattern.compile(regex);
                TreeSet<Long> expected = new TreeSet<>();
                for (Func f : oracle.functions()) {
                    oracle.in(f).stream().filter(i -> p.matcher(i.mnemonic()).matches()).forEach(i -> expected.add(i.address()));
                }
                TreeSet<Long> ours = addresses(select(binary, "insn:*:" + regex));
                assertEquals(expected, ours, program + ": insn:*:" + regex);
                assertFalse(expected.isEmpty() && List.of("c\\.sdsp", "jal", "c\\.j", "beq|bne", "mul.*").contains(regex),
                        program + ": no " + regex);
            }
        }
    }

    @Test
    void blocksAndLoopHeadsAreThoseOfBoltsRulesAppliedToObjdumpsListing() {
        for (String program : PROGRAMS) {
            Path binary = TestPrograms.rv64(program);
            ElfFile elf = ElfFile.read(binary);
            ObjdumpCode oracle = ObjdumpCode.of(binary);
            Map<Long, long[]> pads = LandingPads.of(elf);
            PointSelector selector = PointSelector.of(elf);
            TreeSet<Long> blocks = addresses(selector.select(PointSpec.parse("block:*")));
            TreeSet<Long> loops = addresses(selector.select(PointSpec.parse("loop:*")));
            TreeSet<Long> expectedBlocks = new TreeSet<>();
            TreeSet<Long> expectedLoops = new TreeSet<>();
            for (Func f : oracle.functions()) {
                Graph g = Graph.of(f, oracle.in(f), pads.getOrDefault(f.address(), new long[0]));
                expectedBlocks.addAll(g.starts);
                expectedLoops.addAll(g.loopHeads());
            }
            assertEquals(expectedBlocks, blocks, program + ": block:*");
            assertEquals(expectedLoops, loops, program + ": loop:*");
            assertTrue(expectedLoops.size() > 100, program + ": " + expectedLoops.size() + " loops");
        }
        // The hot loop of loops.c: one head, the target of its one backward branch.
        Path loops = TestPrograms.rv64("loops.relocs");
        ObjdumpCode oracle = ObjdumpCode.of(loops);
        Func hot = oracle.functions().stream().filter(f -> f.name().equals("hot_loop")).findFirst().orElseThrow();
        List<Long> backward = oracle.in(hot).stream().filter(i -> CONDITIONAL.contains(i.mnemonic()) && i.target() <= i.address())
                .map(Insn::target).toList();
        assertEquals(1, backward.size());
        assertEquals(backward, List.copyOf(addresses(select(loops, "loop:hot_loop"))));
    }

    @Test
    void exitsAreEveryReturnAndTailJumpAndCallsEveryCallSite() {
        for (String program : List.of("loops.relocs", "exceptions.relocs", "call_pairs.relocs", "loops.norvc")) {
            Path binary = TestPrograms.rv64(program);
            ObjdumpCode oracle = ObjdumpCode.of(binary);
            TreeSet<Long> exits = new TreeSet<>();
            TreeSet<Long> calls = new TreeSet<>();
            int pairs = 0;
            for (Func f : oracle.functions()) {
                List<Insn> code = oracle.in(f);
                for (int k = 0; k < code.size(); k++) {
                    Insn i = code.get(k);
                    boolean exit = isIndirect(i) && !links(i) || isDirectJump(i) && !inside(f, i.target());
                    boolean call = links(i);
                    // auipc; jalr through the auipc's register (an unrelaxed call or tail): the sequence starts at the auipc
                    boolean pair = k > 0 && i.mnemonic().equals("jalr") && code.get(k - 1).mnemonic().equals("auipc")
                            && code.get(k - 1).firstRegister().equals(i.base());
                    long at = pair ? code.get(k - 1).address() : i.address();
                    if (exit) {
                        exits.add(at);
                    }
                    if (call) {
                        calls.add(at);
                    }
                    pairs += pair && (exit || call) ? 1 : 0;
                }
            }
            PointSelector selector = PointSelector.of(ElfFile.read(binary));
            List<Point> exitPoints = selector.select(PointSpec.parse("exit:*"));
            List<Point> callPoints = selector.select(PointSpec.parse("call:*"));
            assertEquals(exits, addresses(exitPoints), program + ": exit:*");
            assertEquals(calls, addresses(callPoints), program + ": call:*");
            assertTrue(pairs == 4 || !program.startsWith("call_pairs"), program + ": " + pairs + " auipc pairs among them");
            for (Point p : exitPoints) {
                assertTrue(p.accepted() || p.refusal().reason() != Reason.INSIDE_PC_RELATIVE_PAIR, p.toString());
            }
            for (Point p : callPoints) {
                assertTrue(p.accepted() || p.refusal().reason() != Reason.INSIDE_PC_RELATIVE_PAIR, p.toString());
            }
        }
    }

    @Test
    void aJalrCompletingAnAuipcPairIsRefusedAndTheAcceptedPointsAreTheRewritesInsertionPoints() {
        Path binary = TestPrograms.rv64("call_pairs.relocs");
        ElfFile elf = ElfFile.read(binary);
        ObjdumpCode oracle = ObjdumpCode.of(binary);
        PointSelector selector = PointSelector.of(elf);
        Map<Long, Point> jalrs = new TreeMap<>();
        selector.select(PointSpec.parse("insn:*:jalr")).forEach(p -> jalrs.put(p.address(), p));
        int refused = 0;
        for (Func f : oracle.functions()) {
            List<Insn> code = oracle.in(f);
            for (int k = 1; k < code.size(); k++) {
                Insn i = code.get(k);
                Insn before = code.get(k - 1);
                if (i.mnemonic().equals("jalr") && before.mnemonic().equals("auipc") && before.firstRegister().equals(i.base())) {
                    Point p = jalrs.get(i.address());
                    if (p.refusal() != null && p.refusal().reason() == Reason.INSIDE_PC_RELATIVE_PAIR) {
                        refused++;
                    } else {
                        assertFalse(p.accepted(), p + ": inside the pair from the auipc at 0x" + Long.toHexString(before.address()));
                    }
                }
            }
        }
        assertEquals(4, refused, "jalrs refused inside their pair");
        Rewrite rewrite = Rewrite.of(elf);
        for (String name : List.of("run", "plus_one_tail")) { // not _start: it falls through at its end (ecall)
            dev.splice.elf.Function f = elf.function(name).orElseThrow();
            List<Long> accepted = selector.select(PointSpec.parse("insn:" + name + ":.*")).stream().filter(Point::accepted)
                    .map(Point::address).toList();
            assertEquals(rewrite.insertionPoints(f), accepted, name);
        }
        ElfFile exceptions = ElfFile.read(TestPrograms.rv64("exceptions.relocs"));
        PointSelector cxx = PointSelector.of(exceptions);
        rewrite = Rewrite.of(exceptions);
        for (String name : List.of("main", "__cxa_throw", "_Unwind_RaiseException", "__libc_start_call_main", "_IO_new_file_xsputn")) {
            dev.splice.elf.Function f = exceptions.function(name).orElseThrow(() -> new AssertionError(name));
            List<Long> accepted = cxx.select(PointSpec.parse("insn:" + name + ":.*")).stream().filter(Point::accepted)
                    .map(Point::address).toList();
            assertEquals(rewrite.insertionPoints(f), accepted, name);
        }
    }

    @Test
    void globsMatchWholeNamesAsTheShellDoes() {
        Path binary = TestPrograms.rv64("loops.relocs");
        List<Func> functions = ObjdumpCode.of(binary).functions();
        Map<String, java.util.function.Predicate<String>> cases = new java.util.LinkedHashMap<>();
        cases.put("hot_*", n -> n.startsWith("hot_"));
        cases.put("fi?", n -> n.length() == 3 && n.startsWith("fi"));
        cases.put("*loop*", n -> n.contains("loop"));
        cases.put("[a-f]*", n -> !n.isEmpty() && n.charAt(0) >= 'a' && n.charAt(0) <= 'f');
        cases.put("[!_]*", n -> !n.startsWith("_"));
        cases.put("_IO_*_[xy]s*", n -> n.matches("_IO_.*_[xy]s.*"));
        cases.put("main", n -> n.equals("main"));
        for (Map.Entry<String, java.util.function.Predicate<String>> c : cases.entrySet()) {
            // A function is selected when its name or one of its aliases matches.
            TreeSet<Long> expected = functions.stream().filter(f -> f.names().stream().anyMatch(c.getValue())).map(Func::address)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(expected, addresses(select(binary, "entry:" + c.getKey())), c.getKey());
            assertFalse(expected.isEmpty(), c.getKey());
        }
        assertEquals(List.of("main"), select(binary, "entry:ma\\in").stream().map(Point::function).toList(), "a quoted letter");
        BadInputException none = assertThrows(BadInputException.class, () -> select(binary, "entry:hot\\*"));
        assertTrue(none.getMessage().contains("'entry:hot\\*': no function"), none.getMessage());
        assertTrue(select(binary, "loop:main").size() >= 2, "main has loops");
        assertEquals(List.of(), select(binary, "loop:twice"), "a function without loops selects nothing");
    }

    @Test
    void explicitSpecsSelectOnePointEachAndSayWhyTheyAreRefused() {
        Path binary = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(binary);
        long main = elf.function("main").orElseThrow().address();
        PointSelector selector = PointSelector.of(elf);
        Point byName = selector.select(PointSpec.parse("main+0x1a")).get(0);
        assertEquals(new Point(PointKind.SYMBOL, main + 0x1a, "main", 0x1a, "main+0x1a", null), byName);
        assertEquals("main+0x1a", byName.location());
        assertEquals(main + 26, selector.select(PointSpec.parse("main+26")).get(0).address());
        assertEquals(main, selector.select(PointSpec.parse("main")).get(0).address());
        Point byAddress = selector.select(PointSpec.parse(Long.toString(main + 0x1a))).get(0);
        assertEquals(PointKind.ADDRESS, byAddress.kind());
        assertEquals(main + 0x1a, byAddress.address());
        Point middle = selector.select(PointSpec.parse("0x" + Long.toHexString(main + 1))).get(0);
        assertEquals(Reason.NOT_AN_INSTRUCTION_BOUNDARY, middle.refusal().reason());
        Point outside = selector.select(PointSpec.parse("0x10")).get(0);
        assertNull(outside.function());
        assertEquals(Reason.NOT_IN_FUNCTION, outside.refusal().reason());
        assertEquals("0x10", outside.location());
        // An offset from a label (a NOTYPE symbol the listing prints) works too.
        long label = elf.symbols().stream().filter(s -> s.name().equals("loop_body") || s.name().startsWith(".L") && s.value() > main
                && s.value() < main + 0x40).findFirst().orElseThrow().value();
        assertTrue(selector.select(PointSpec.parse("0x" + Long.toHexString(label))).get(0).accepted());
        BadInputException unknown = assertThrows(BadInputException.class, () -> selector.select(PointSpec.parse("no_such_fn+4")));
        assertTrue(unknown.getMessage().contains("no symbol named 'no_such_fn'"), unknown.getMessage());
        BadInputException past = assertThrows(BadInputException.class, () -> selector.select(PointSpec.parse("main+0x1000")));
        assertTrue(past.getMessage().contains("past the end of function 'main'"), past.getMessage());
    }

    @Test
    void withoutRelocationsEveryPointIsRefusedAndStillListed() {
        Path binary = TestPrograms.rv64("loops");
        List<Point> points = select(binary, "block:hot_loop");
        assertEquals(addresses(select(TestPrograms.rv64("loops.relocs"), "block:hot_loop")).size(), points.size());
        for (Point p : points) {
            assertEquals(Reason.NO_RELOCATIONS, p.refusal().reason(), p.toString());
        }
    }

    private static boolean inside(Func f, long target) {
        return f.contains(target);
    }

    private static boolean isDirectJump(Insn i) {
        return i.mnemonic().equals("c.j") || i.mnemonic().equals("jal") && i.firstRegister().equals("zero");
    }

    private static boolean isIndirect(Insn i) {
        return i.mnemonic().equals("c.jr") || i.mnemonic().equals("c.jalr") || i.mnemonic().equals("jalr");
    }

    /** A jal or jalr that writes a link register: a call. */
    private static boolean links(Insn i) {
        return i.mnemonic().equals("c.jalr") || (i.mnemonic().equals("jal") || i.mnemonic().equals("jalr"))
                && !i.firstRegister().equals("zero");
    }

    private static boolean isTrap(Insn i) {
        return i.mnemonic().equals("ebreak") || i.mnemonic().equals("c.unimp") || i.mnemonic().equals("unimp")
                || i.mnemonic().equals("csrrw") && i.operands().replace(" ", "").equals("zero,cycle,zero");
    }

    /** One function's blocks by BOLT's rules (docs/cfg.md), from objdump's instructions alone. */
    private static final class Graph {
        final TreeSet<Long> starts = new TreeSet<>();
        final Map<Long, List<Long>> successors = new HashMap<>();
        final Set<Long> entries = new TreeSet<>();

        static Graph of(Func f, List<Insn> code, long[] pads) {
            Graph g = new Graph();
            g.starts.add(f.address());
            g.entries.add(f.address());
            for (long pad : pads) {
                if (f.contains(pad)) {
                    g.starts.add(pad);
                    g.entries.add(pad);
                }
            }
            for (Insn i : code) {
                boolean direct = CONDITIONAL.contains(i.mnemonic()) || isDirectJump(i) || i.mnemonic().equals("jal");
                if (direct && i.target() >= 0 && f.contains(i.target()) && (i.target() != f.address() || !links(i))) {
                    g.starts.add(i.target());
                    if (links(i)) {
                        g.entries.add(i.target()); // a call into its own body: an entry point
                    }
                }
            }
            for (int k = 1; k < code.size(); k++) {
                Insn before = code.get(k - 1);
                Insn i = code.get(k);
                boolean conditionalInside = CONDITIONAL.contains(before.mnemonic()) && f.contains(before.target());
                boolean ends = CONDITIONAL.contains(before.mnemonic()) || isDirectJump(before) || isIndirect(before) && !links(before)
                        || isTrap(before);
                boolean jumpInside = isDirectJump(i) && f.contains(i.target());
                if (ends && !(jumpInside && (conditionalInside || isTrap(before)))) {
                    g.starts.add(i.address());
                }
            }
            // Edges: from each block's last instruction.
            List<Long> list = List.copyOf(g.starts);
            for (int b = 0; b < list.size(); b++) {
                long end = b + 1 < list.size() ? list.get(b + 1) : f.address() + f.size();
                List<Insn> body = code.stream().filter(i -> i.address() >= 0 && i.address() < end).filter(i -> !i.equals(null))
                        .filter(i -> i.address() >= list.get(0)).toList();
                final int bb = b;
                List<Insn> mine = body.stream().filter(i -> i.address() >= list.get(bb)).toList();
                Insn last = mine.get(mine.size() - 1);
                List<Long> next = new ArrayList<>();
                boolean runsOn = !(isDirectJump(last) || isIndirect(last) && !links(last) || isTrap(last));
                if ((CONDITIONAL.contains(last.mnemonic()) || isDirectJump(last)) && f.contains(last.target())) {
                    next.add(last.target());
                }
                if (isDirectJump(last) && mine.size() > 1) {
                    Insn penultimate = mine.get(mine.size() - 2);
                    if (CONDITIONAL.contains(penultimate.mnemonic()) && f.contains(penultimate.target())) {
                        next.add(penultimate.target()); // "branch; jump"
                    }
                }
                if (runsOn && b + 1 < list.size()) {
                    next.add(list.get(b + 1));
                }
                g.successors.put(list.get(b), next);
            }
            return g;
        }

        /** h heads a loop when some reachable u has an edge to h and every path from the entries to u passes h. */
        List<Long> loopHeads() {
            Set<Long> reachable = reach(null);
            TreeSet<Long> heads = new TreeSet<>();
            Map<Long, Set<Long>> without = new HashMap<>();
            for (long u : starts) {
                if (!reachable.contains(u)) {
                    continue;
                }
                for (long h : successors.get(u)) {
                    if (h == u || !without.computeIfAbsent(h, this::reach).contains(u)) {
                        heads.add(h);
                    }
                }
            }
            return List.copyOf(heads);
        }

        private Set<Long> reach(Long removed) {
            Set<Long> seen = new java.util.HashSet<>();
            ArrayDeque<Long> work = new ArrayDeque<>();
            for (long e : entries) {
                if (!Long.valueOf(e).equals(removed) && seen.add(e)) {
                    work.add(e);
                }
            }
            while (!work.isEmpty()) {
                for (long s : successors.get(work.poll())) {
                    if (!Long.valueOf(s).equals(removed) && seen.add(s)) {
                        work.add(s);
                    }
                }
            }
            return seen;
        }
    }
}
