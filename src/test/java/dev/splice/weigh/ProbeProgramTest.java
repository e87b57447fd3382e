package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.Tools;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbePair;
import dev.splice.weigh.probe.ProbeProgram;
import dev.splice.weigh.probe.Window;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeProgramTest {
    private static final ContextTable TABLE = ContextTable.load();
    @TempDir Path tmp;

    private static ProbeProgram.Probe generate(String patterns, long seed, int rounds) {
        return ProbeProgram.generate(TABLE, TABLE.select(patterns), ProbeOptions.of(seed, rounds));
    }

    @Test
    void theSameSeedAndOptionsGiveTheSameBytes() {
        String contexts = "addi.independent,div.dependency,jalr.*,c.beqz.taken,sc.d.reservation-pair,fdiv.d.*";
        ProbeProgram.Probe a = generate(contexts, 7, 3);
        ProbeProgram.Probe b = generate(contexts, 7, 3);
        assertArrayEquals(a.elf(), b.elf());
        assertEquals(a.pairs(), b.pairs());
        ProbeProgram.Probe c = generate(contexts, 8, 3);
        assertFalse(java.util.Arrays.equals(a.elf(), c.elf()), "another seed, another order");
        assertEquals(a.elf().length, c.elf().length, "only the schedule differs");
    }

    @Test
    void roundsMeasureEveryContextAndBatchOnceInBothOrders() {
        ProbeProgram.Probe p = generate("addi.independent,mul.dependency,jalr.indirect-jump", 3, 20);
        // jal.direct-jump comes in as jalr's baseline and is measured too
        assertEquals(List.of("addi.independent", "mul.dependency", "jalr.indirect-jump", "jal.direct-jump"), p.contexts());
        for (int round = 0; round < 20; round++) {
            int r = round;
            List<ProbePair> inRound = p.pairs().stream().filter(x -> x.round() == r).toList();
            assertEquals(4 * 3, inRound.size());
            assertEquals(4 * 3, inRound.stream().map(x -> x.context() + "/" + x.batch()).distinct().count());
        }
        long ab = p.pairs().stream().filter(x -> x.order().equals("AB")).count();
        assertTrue(ab > 60 && ab < 180, "AB/BA drawn at random: " + ab + " of 240");
        assertEquals(List.of(4096, 16384, 65536),
                p.pairs().stream().map(ProbePair::batch).distinct().sorted().toList());
        // every measured window follows a warm-up of the same kernel
        for (ProbePair pair : p.pairs()) {
            for (int w : new int[] {pair.probeWindow(), pair.baselineWindow()}) {
                Window measured = p.windows().get(w);
                Window warmup = p.windows().get(w - 1);
                assertFalse(measured.warmup());
                assertTrue(warmup.warmup());
                assertEquals(measured.context(), warmup.context());
                assertEquals(pair.calls(), measured.calls());
            }
            assertEquals(pair.context(), p.windows().get(pair.probeWindow()).context());
            assertEquals(pair.baseline(), p.windows().get(pair.baselineWindow()).context());
            assertEquals(pair.order().equals("AB"), pair.probeWindow() < pair.baselineWindow());
        }
    }

    /**
     * QEMU ends a translation block at a page boundary, so a kernel that straddles one runs a block more
     * per call than the same kernel elsewhere: every kernel of every context, at sizes drawn per context,
     * lies within one page or (longer than a page) starts on one. M-mode kernels are left out: their
     * {@code end} includes the padding to the page that follows them.
     */
    @Test
    void noKernelCrossesAPageBoundaryItNeedNot() {
        List<Context> all = TABLE.contexts().stream().filter(c -> c.runsOnQemu() || c.systemOnly()).toList();
        java.util.Random random = new java.util.Random(12);
        Map<String, Integer> slots = new TreeMap<>();
        all.forEach(c -> slots.put(c.key(), 1 << random.nextInt(11)));
        ProbeProgram.Probe p = ProbeProgram.generate(TABLE, all, new ProbeOptions(5, 1, List.of(1), 2, slots));
        int checked = 0;
        int aligned = 0;
        for (ProbeProgram.Kernel k : p.kernels().values()) {
            if (TABLE.context(k.context()).orElseThrow().machineMode()) {
                continue;
            }
            checked++;
            if (k.end() - k.address() <= 4096) {
                assertEquals(k.address() / 4096, (k.end() - 1) / 4096, k.context() + "@" + k.slots() + " crosses a page");
            } else {
                assertEquals(0, k.address() % 4096, k.context() + "@" + k.slots() + " is longer than a page and starts within one");
            }
            aligned += k.address() % 4096 == 0 ? 1 : 0;
        }
        assertTrue(checked > 300, "kernels checked: " + checked);
        assertTrue(aligned > 10 && aligned < checked, "page-aligned kernels: " + aligned + " of " + checked);
    }

    /** GNU objdump, an independent decoder, finds exactly the kernel contents the generator counted. */
    @Test
    void kernelsAreWhatObjdumpSeesAndSlotsAreWhatLlvmMcAssembles() throws IOException {
        ProbeProgram.Probe p = generate("c.addi.dependency,jalr.call,sc.w.reservation-pair,fcvt.w.d.rtz", 1, 1);
        Path elf = tmp.resolve("probe");
        Files.write(elf, p.elf());
        Map<Long, long[]> objdump = PluginFixtures.objdumpInstructions(elf);
        for (ProbeProgram.Kernel k : p.kernels().values()) {
            Map<Long, Long> seen = new TreeMap<>();
            long at = k.address();
            long total = k.perCall().values().stream().mapToLong(Long::longValue).sum();
            for (long i = 0; i < total; i++) {
                long[] insn = objdump.get(at);
                assertTrue(insn != null, k.context() + ": objdump has no instruction at 0x" + Long.toHexString(at));
                seen.merge(insn[1] << 32 | insn[0], 1L, Long::sum);
                at += insn[1];
            }
            assertEquals(k.perCall(), seen, k.context());
            Context c = TABLE.context(k.context()).orElseThrow();
            // full-width contexts must not be compressed by the oracle either
            String attributes = (c.form() == Context.Form.COMPRESSED ? "+c," : "") + "+m,+a,+f,+d,+zicsr,+zifencei,+zba,+zbb,+zbs";
            String slot = c.slotWith("t3", "ft4").replace("1f", "4").replaceAll(", 2$", ", 2");
            if (!slot.contains("(t0)") && !c.key().startsWith("c.j")) {
                long enc = PluginFixtures.llvmMcEncoding(slot, attributes);
                assertTrue(k.slotEncodings().contains((long) c.form().size() << 32 | enc),
                        k.context() + ": llvm-mc-22 encodes " + slot + " as 0x" + Long.toHexString(enc));
            }
        }
    }

    @Test
    void theProbeRunsAndReportsItsClock() throws IOException {
        ProbeProgram.Probe p = generate("addi.independent,ld.hot-load", 5, 1);
        Path elf = tmp.resolve("probe");
        Files.write(elf, p.elf());
        elf.toFile().setExecutable(true);
        Path out = tmp.resolve("out");
        Tools.Result r = Tools.run(List.of("sh", "-c", "qemu-riscv64 " + elf + " > " + out), "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        dev.splice.weigh.campaign.GuestClock clock =
                dev.splice.weigh.campaign.GuestClock.parse(Files.readAllBytes(out), p.windows().size(), "out");
        // user-mode rdtime is the host TSC: between 0.1 and 10 ticks per ns, never a 10 MHz timebase (0.01)
        assertTrue(clock.ticksPerNs() > 0.1 && clock.ticksPerNs() < 10, "ticks/ns " + clock.ticksPerNs());
        for (int i = 0; i < p.windows().size(); i++) {
            assertTrue(clock.windowNs(i) > 0, "window " + i);
            if (i > 0) {
                assertTrue(clock.starts()[i] >= clock.ends()[i - 1], "windows in order");
            }
        }
    }
}
