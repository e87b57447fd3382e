package dev.splice.cfg.riscv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Block;
import dev.splice.cfg.ControlFlowGraph.Kind;
import dev.splice.cfg.LandingPads;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.BoltOutputs;
import dev.splice.testing.BranchSites;
import dev.splice.testing.TestPrograms;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The write-back's RISC-V CFGs of every function of static glibc (and libstdc++) programs, and of a
 * BOLTed, split one, against llvm-objdump-22's disassembly: the same instructions, a block start at
 * every direct branch target and nowhere without a reason, successors as the last instruction says,
 * and loop heads as the definition (a back edge's target dominates its source) computed by brute
 * force.
 */
class RiscVCfgTest {
    private static final Set<String> CONDITIONAL = Set.of("beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez",
            "blez", "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu", "c.beqz", "c.bnez");
    private static final Set<String> JUMP = Set.of("j", "c.j");
    private static final Set<String> INDIRECT = Set.of("jr", "ret", "c.jr");

    @Test
    void staticGlibcProgramsAgreeWithLlvmObjdump() {
        for (String program : List.of("loops.relocs", "exceptions.relocs")) {
            check(TestPrograms.rv64(program));
        }
    }

    @Test
    void aBoltedSplitProgramAgreesWithLlvmObjdump() {
        check(BoltOutputs.get("rv64-loops-split-exttsp-cdsort-icf").output());
    }

    @Test
    void theHotLoopHasOneLoopHeadAtItsBackwardBranchTarget() {
        Path binary = TestPrograms.rv64("loops");
        ElfFile elf = ElfFile.read(binary);
        BranchSites llvm = BranchSites.of(binary);
        for (String name : List.of("hot_loop", "classify", "fib", "apply_all")) {
            Function f = elf.function(name).orElseThrow();
            ControlFlowGraph cfg = RiscVCfg.of(elf, f);
            TreeSet<Long> backward = new TreeSet<>();
            for (BranchSites.Site s : llvm.sites()) {
                boolean branch = CONDITIONAL.contains(s.mnemonic()) || JUMP.contains(s.mnemonic()); // not fib's recursive call
                if (branch && f.contains(s.address()) && f.contains(s.target()) && s.target() <= s.address()) {
                    backward.add(s.target() - f.address());
                }
            }
            List<Long> heads = Arrays.stream(cfg.loopHeads()).mapToObj(b -> (long) cfg.blocks().get(b).start()).toList();
            assertEquals(List.copyOf(backward), heads, name);
        }
        Function hot = elf.function("hot_loop").orElseThrow();
        ControlFlowGraph cfg = RiscVCfg.of(elf, hot);
        assertEquals(1, cfg.loopHeads().length, "hot_loop has one loop");
        Block head = cfg.blocks().get(cfg.loopHeads()[0]);
        assertTrue(head.taken().contains(head.index()), "its body is one block that branches back to itself");
    }

    /**
     * A function size near 2^31 from a forged symbol table made {@code base + size} overflow past
     * the bounds check, and the graph's arrays were then sized by it (an OutOfMemoryError, found
     * by session 8's fuzz run of {@code patch}): a range beyond the code is no graph.
     */
    @Test
    void aSizeThatOverflowsTheCodeIsNoGraph() {
        byte[] code = new byte[64];
        for (int size : new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE - 8, Integer.MAX_VALUE - 31}) {
            assertEquals(null, RiscVCfg.of(code, 32, size, new int[0]), "size " + size);
        }
    }

    @Test
    void aConditionalBranchOutOfTheFunctionIsAConditionalTailCallForTheWriteBack() throws Exception {
        dev.splice.isa.Isa isa = dev.splice.isa.Isa.rv64();
        byte[] code = new byte[12];
        dev.splice.base.Le.putU32(code, 0, dev.splice.isa.Encoder.encode(isa.opcode("beq"), 10, 11, 64)); // out
        dev.splice.base.Le.putU32(code, 4, dev.splice.isa.Encoder.encode(isa.opcode("bne"), 10, 0, 0)); // loop on itself
        dev.splice.base.Le.putU32(code, 8, dev.splice.isa.Encoder.encode(isa.opcode("jalr"), 0, 0, 1)); // ret
        assertEquals(null, RiscVCfg.of(code, 0, code.length, new int[0], new int[0], new int[0], false, false),
                "perf2bolt builds no CFG for it");
        ControlFlowGraph cfg = RiscVCfg.of(code, 0, code.length, new int[0]);
        List<Block> blocks = cfg.blocks();
        assertEquals(List.of(0, 4, 8), blocks.stream().map(Block::start).toList());
        assertEquals(Kind.CONDITIONAL_TAIL_CALL, blocks.get(0).kind());
        assertEquals(List.of(1), blocks.get(0).successors());
        assertEquals(List.of(1, 2), blocks.get(1).successors());
        assertTrue(blocks.get(2).exits());
        assertEquals(List.of(1), Arrays.stream(cfg.loopHeads()).boxed().toList());
    }

    private static void check(Path binary) {
        ElfFile elf = ElfFile.read(binary);
        BranchSites llvm = BranchSites.of(binary);
        Map<Long, long[]> pads = LandingPads.of(elf);
        TreeMap<Long, String> mnemonics = new TreeMap<>();
        llvm.instructions().forEach(i -> mnemonics.put(i.address(), i.mnemonic()));
        Map<Long, Long> targets = new HashMap<>();
        llvm.sites().forEach(s -> targets.put(s.address(), s.target()));
        int functions = 0;
        int blocks = 0;
        int loops = 0;
        for (Function f : elf.functions()) {
            if (f.size() <= 0 || f.section() == null || !f.section().isExecutable()) {
                continue;
            }
            long start = f.address();
            int[] padOffsets = Arrays.stream(pads.getOrDefault(start, new long[0])).filter(f::contains)
                    .mapToInt(a -> (int) (a - start)).toArray();
            ControlFlowGraph cfg = RiscVCfg.of(elf.contents(f.section()), (int) (start - f.section().address()),
                    (int) f.size(), padOffsets);
            String where = binary.getFileName() + ": " + f.name();
            assertTrue(cfg != null, where + ": no CFG");
            functions++;
            List<Block> list = cfg.blocks();
            blocks += list.size();
            // The instructions are llvm-objdump's, the blocks partition them in address order.
            List<Long> ours = new ArrayList<>();
            for (Block b : list) {
                assertEquals(b.index() + 1 < list.size() ? list.get(b.index() + 1).start() : f.size(), (long) b.end(), where);
                assertEquals(b.start(), (int) b.instructions().get(0), where);
                b.instructions().forEach(i -> ours.add(start + i));
            }
            assertEquals(List.copyOf(mnemonics.subMap(start, start + f.size()).keySet()), ours, where + ": instructions");
            TreeSet<Integer> blockStarts = new TreeSet<>();
            list.forEach(b -> blockStarts.add(b.start()));
            Set<Integer> padSet = new java.util.HashSet<>();
            Arrays.stream(padOffsets).forEach(padSet::add);
            // A block start at every direct target inside the function ...
            TreeSet<Integer> directTargets = new TreeSet<>();
            for (long at : ours) {
                Long t = targets.get(at);
                String m = mnemonics.get(at);
                if (t != null && !m.startsWith("jalr") && !m.equals("jr") && f.contains(t)) {
                    directTargets.add((int) (t - start));
                }
            }
            assertTrue(blockStarts.containsAll(directTargets), where + ": a branch target starts no block");
            // ... and none without a reason: the start, a landing pad, a target, or after a terminator.
            for (Block b : list) {
                if (b.start() == 0 || padSet.contains(b.start()) || directTargets.contains(b.start())) {
                    continue;
                }
                String before = mnemonics.lowerEntry(start + b.start()).getValue();
                assertTrue(CONDITIONAL.contains(before) || JUMP.contains(before) || INDIRECT.contains(before)
                        || before.equals("ebreak") || before.equals("unimp"), where + ": block at +" + b.start() + " after " + before);
            }
            // Successors as the last instruction says.
            for (Block b : list) {
                long last = start + b.instructions().get(b.instructions().size() - 1);
                String m = mnemonics.get(last);
                Long t = targets.get(last);
                boolean inside = t != null && f.contains(t);
                int next = b.index() + 1 < list.size() ? b.index() + 1 : -1;
                String what = where + ": block at +" + b.start() + " ending in " + m;
                if (CONDITIONAL.contains(m)) {
                    assertEquals(inside ? Kind.CONDITIONAL : Kind.CONDITIONAL_TAIL_CALL, b.kind(), what);
                    assertEquals(inside ? List.of(cfg.blockIndexAt(t - start)) : List.of(), b.taken(), what);
                    assertEquals(next, b.fallThrough(), what);
                } else if (JUMP.contains(m) && inside) {
                    TreeSet<Integer> expected = new TreeSet<>(List.of(cfg.blockIndexAt(t - start)));
                    if (b.instructions().size() > 1) {
                        long penultimate = start + b.instructions().get(b.instructions().size() - 2);
                        Long pt = targets.get(penultimate);
                        if (CONDITIONAL.contains(mnemonics.get(penultimate)) && pt != null && f.contains(pt)) {
                            expected.add(cfg.blockIndexAt(pt - start)); // "branch; jump"
                        }
                    }
                    assertEquals(Kind.JUMP, b.kind(), what);
                    assertEquals(List.copyOf(expected), b.taken(), what);
                    assertEquals(-1, b.fallThrough(), what);
                } else if (JUMP.contains(m) || INDIRECT.contains(m)) {
                    assertTrue(b.exits() && b.successors().isEmpty(), what);
                } else if (m.equals("unimp") || m.equals("ebreak") && !is2Bytes(mnemonics, last)) {
                    assertEquals(Kind.TRAP, b.kind(), what);
                    assertTrue(b.successors().isEmpty(), what);
                } else {
                    assertTrue(b.kind() == Kind.PLAIN || b.kind() == Kind.CALL, what);
                    assertEquals(List.of(), b.taken(), what);
                    assertEquals(next, b.fallThrough(), what);
                }
            }
            int[] heads = cfg.loopHeads();
            assertEquals(bruteForceLoopHeads(list), Arrays.stream(heads).boxed().toList(), where + ": loop heads");
            loops += heads.length;
        }
        assertTrue(functions > 500 && blocks > 10 * functions && loops > 100,
                binary + ": " + functions + " functions, " + blocks + " blocks, " + loops + " loops");
    }

    private static boolean is2Bytes(TreeMap<Long, String> mnemonics, long at) {
        Long next = mnemonics.higherKey(at);
        return next != null && next - at == 2;
    }

    /** The loop heads by the definition: h with an edge u -> h from a reachable u that h dominates. */
    private static List<Integer> bruteForceLoopHeads(List<Block> blocks) {
        boolean[] reachable = reach(blocks, -1);
        TreeSet<Integer> heads = new TreeSet<>();
        Map<Integer, boolean[]> without = new HashMap<>();
        for (Block u : blocks) {
            if (!reachable[u.index()]) {
                continue;
            }
            for (int h : u.successors()) {
                boolean[] r = without.computeIfAbsent(h, x -> reach(blocks, x));
                if (h == u.index() || !r[u.index()]) { // every path to u passes h
                    heads.add(h);
                }
            }
        }
        return List.copyOf(heads);
    }

    /** The blocks reachable from the entry points without passing block {@code removed}. */
    private static boolean[] reach(List<Block> blocks, int removed) {
        boolean[] seen = new boolean[blocks.size()];
        ArrayDeque<Integer> work = new ArrayDeque<>();
        for (Block b : blocks) {
            if (b.entryPoint() && b.index() != removed) {
                seen[b.index()] = true;
                work.add(b.index());
            }
        }
        while (!work.isEmpty()) {
            for (int s : blocks.get(work.poll()).successors()) {
                if (s != removed && !seen[s]) {
                    seen[s] = true;
                    work.add(s);
                }
            }
        }
        return seen;
    }
}
