package dev.splice.weigh.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contexts marked {@code tcg=folds} (and the independent ones marked as measuring dead-code
 * elimination) are exactly the integer chains whose slots QEMU's own optimizer reduces to nothing or
 * to a constant move: the oracle is {@code qemu-riscv64 -d op_opt}, the TCG ops of each guest
 * instruction after optimization and liveness analysis, of a probe holding every integer
 * dependency and independent kernel.
 */
class FoldedChainsTest {
    /** A context whose slots are folded more often than this measures the optimizer. */
    private static final double FOLDED_SHARE = 0.25;

    /** TCG ops that do no work of the instruction: moves, labels, block exits. */
    private static final List<String> IDLE_OPS =
            List.of("mov_i64 ", "mov_i32 ", "discard ", "set_label ", "br ", "exit_tb ", "goto_tb ");

    @TempDir
    Path dir;

    @Test
    void markedChainsAreTheOnesTcgFolds() throws Exception {
        ContextTable table = ContextTable.load();
        List<Context> chains = table.contexts().stream()
                .filter(c -> c.runsOnQemu() && c.baseline().isPresent())
                .filter(c -> c.pattern() == Context.Pattern.DEPENDENCY || c.pattern() == Context.Pattern.INDEPENDENT)
                .filter(c -> List.of("i", "m", "c", "zba", "zbb", "zbs").contains(c.extension()))
                .toList();
        assertTrue(chains.size() > 150, "integer chain contexts: " + chains.size());
        ProbeProgram.Probe probe = ProbeProgram.generate(table, chains, new ProbeOptions(1, 1, List.of(1), 2));
        Map<Long, Boolean> works = workingInstructions(opOpt(probe, "probe"));
        ElfFile file = ElfFile.read(dir.resolve("probe.elf"));
        List<String> folded = new ArrayList<>();
        for (Context c : chains) {
            ProbeProgram.Kernel k = probe.kernels().get(c.key());
            int slots = 0;
            int idle = 0;
            long pc = k.address();
            while (pc < k.end()) {
                long raw = encoding(file, pc);
                int size = (raw & 3) == 3 ? 4 : 2;
                long key = ((long) size << 32) | (size == 4 ? raw : raw & 0xffff);
                if (k.slotEncodings().contains(key) && works.containsKey(pc)) {
                    slots++;
                    idle += works.get(pc) ? 0 : 1;
                }
                pc += size;
            }
            assertEquals(ProbeProgram.SLOTS, slots, c.key() + ": slots seen in the optimized TCG log");
            double share = (double) idle / slots;
            if (share > FOLDED_SHARE) {
                folded.add(c.key());
            }
            assertTrue(share > FOLDED_SHARE || share < 0.02, c.key() + ": " + idle + " of " + slots
                    + " slots folded, neither none nor most");
        }
        List<String> marked = chains.stream().filter(Context::measuresTcgOptimizer).map(Context::key).toList();
        assertEquals(new TreeSet<>(marked), new TreeSet<>(folded),
                "contexts marked as measuring TCG's optimizer against those whose slots it folds");
        assertTrue(folded.contains("andi.dependency") && !folded.contains("addi.dependency"), folded.toString());
    }

    /**
     * The floating-point moves, conversions, comparisons and classifications write their rotating
     * register from fixed sources, so TCG may delete a slot whose result the next write of the register
     * replaces, or a copy it knows is already there: the ones it deletes (no op left after optimization,
     * the oracle) are exactly the ones marked as measuring TCG's optimizer. {@code fmv.d.x.move} (0.0017 ns,
     * the cheapest context above zero of session 8's formal campaign) is one of them, so it cannot be the
     * practical-zero reference ({@code WeighModel} skips marked contexts).
     */
    @Test
    void deletedFloatingPointSlotsAreMarked() throws Exception {
        ContextTable table = ContextTable.load();
        List<Context> fp = table.contexts().stream()
                .filter(c -> c.runsOnQemu() && c.baseline().isPresent() && c.cpu().isEmpty())
                .filter(c -> List.of(Context.Pattern.MOVE, Context.Pattern.CONVERT, Context.Pattern.COMPARE,
                        Context.Pattern.CLASSIFY).contains(c.pattern()))
                .toList();
        assertTrue(fp.size() >= 25, "floating-point move/convert/compare/classify contexts: " + fp.size());
        ProbeProgram.Probe probe = ProbeProgram.generate(table, fp, new ProbeOptions(1, 1, List.of(1), 2));
        Path log = opOpt(probe, "fp");
        Map<Long, int[]> ops = instructionOps(log);
        ElfFile file = ElfFile.read(dir.resolve("fp.elf"));
        List<String> deleted = new ArrayList<>();
        for (Context c : fp) {
            ProbeProgram.Kernel k = probe.kernels().get(c.key());
            int slots = 0;
            int gone = 0;
            for (long pc = k.address(); pc < k.end(); pc += 4) {
                long raw = encoding(file, pc);
                if (k.slotEncodings().contains(4L << 32 | raw) && ops.containsKey(pc)) {
                    slots++;
                    gone += ops.get(pc)[0] == 0 ? 1 : 0;
                }
            }
            assertEquals(ProbeProgram.SLOTS, slots, c.key() + ": slots seen in the optimized TCG log");
            double share = (double) gone / slots;
            if (share > FOLDED_SHARE) {
                deleted.add(c.key());
            }
            assertTrue(share > FOLDED_SHARE || share < 0.02, c.key() + ": " + gone + " of " + slots
                    + " slots deleted, neither none nor most");
        }
        List<String> marked = fp.stream().filter(Context::measuresTcgOptimizer).map(Context::key).toList();
        assertEquals(new TreeSet<>(marked), new TreeSet<>(deleted),
                "contexts marked as measuring TCG's optimizer against those whose slots it deletes");
        assertTrue(deleted.contains("fmv.d.x.move") && !deleted.contains("fcvt.d.l.dyn"), deleted.toString());
    }

    private Path opOpt(ProbeProgram.Probe probe, String name) throws Exception {
        Path elf = dir.resolve(name + ".elf");
        Files.write(elf, probe.elf());
        assertTrue(elf.toFile().setExecutable(true));
        Path log = dir.resolve(name + ".op_opt.log");
        Process p = new ProcessBuilder("qemu-riscv64", "-d", "op_opt", "-D", log.toString(), elf.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "qemu-riscv64 -d op_opt timed out");
        assertEquals(0, p.exitValue());
        return log;
    }

    /** For each guest instruction in the log, how many ops are left after optimization (0: deleted). */
    private static Map<Long, int[]> instructionOps(Path log) throws IOException {
        Map<Long, int[]> out = new TreeMap<>();
        int[] current = null;
        try (java.io.BufferedReader r = Files.newBufferedReader(log)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String s = line.strip();
                if (line.startsWith(" ---- ")) {
                    // a pc translated in several blocks counts as present if any block kept an op
                    current = out.computeIfAbsent(Long.parseUnsignedLong(s.split("\\s+")[1], 16), k -> new int[1]);
                } else if (line.startsWith("OP after") || line.startsWith("OP:") || line.startsWith("IN:")) {
                    current = null;
                } else if (current != null && !s.isEmpty()) {
                    current[0]++;
                }
            }
        }
        return out;
    }

    /** The 4 bytes at {@code pc} (a 2-byte instruction's in the low half). */
    private static long encoding(ElfFile f, long pc) {
        int off = (int) f.fileOffset(pc).orElseThrow();
        return ByteBuffer.wrap(f.toBytes(), off, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xffffffffL;
    }

    /**
     * For each guest instruction in the log, whether any op after optimization does work: anything
     * but a move (of a constant or a copy), a label, a TB exit or the TB's interrupt check.
     */
    private static Map<Long, Boolean> workingInstructions(Path log) throws IOException {
        Map<Long, Boolean> out = new TreeMap<>();
        Long pc = null;
        boolean works = false;
        try (java.io.BufferedReader r = Files.newBufferedReader(log)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String s = line.strip();
                if (line.startsWith(" ---- ") || line.startsWith("OP after")) {
                    if (pc != null) {
                        out.merge(pc, works, Boolean::logicalOr);
                    }
                    pc = line.startsWith(" ---- ") ? Long.parseUnsignedLong(s.split("\\s+")[1], 16) : null;
                    works = false;
                } else if (pc != null && !s.isEmpty() && IDLE_OPS.stream().noneMatch(s::startsWith)) {
                    works = true;
                }
            }
        }
        if (pc != null) {
            out.merge(pc, works, Boolean::logicalOr);
        }
        return out;
    }
}
