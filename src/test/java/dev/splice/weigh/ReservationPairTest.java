package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ExecutableBuilder;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.testing.Tools;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbeProgram;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4 section 2: every SC of a reservation-pair probe kernel succeeds. The LR/SC words are
 * taken byte for byte from the generated probe executable and run under qemu-riscv64 in a tiny
 * harness that ORs each SC's destination register (0 on success) into an accumulator.
 */
class ReservationPairTest {
    private static final ContextTable TABLE = ContextTable.load();
    private static final long TEXT = 0x11000;
    private static final long DATA = 0x100000;
    private static final int LOOPS = 20;
    private static final int NOP = 0x00000013;
    private static final String[] ABI = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1",
        "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
        "t5", "t6"};
    @TempDir Path tmp;

    @Test
    void everyScOfEveryReservationPairKernelSucceedsAndTheControlFails() throws IOException {
        List<Context> scContexts = TABLE.contexts().stream()
                .filter(c -> c.key().startsWith("sc.") && c.runsOnQemu()).toList();
        assertTrue(scContexts.size() >= 3, "sc.w, sc.d and sc.d.rl pairs: " + scContexts);
        ProbeProgram.Probe probe = ProbeProgram.generate(TABLE, scContexts, ProbeOptions.of(1, 1));
        for (Context c : scContexts) {
            int[] pairs = kernelPairs(probe, probe.kernels().get(c.key()));
            assertEquals(ProbeProgram.SLOTS * 2, pairs.length, c.key());
            // the real kernel: exit 0 = every SC wrote 0 to rd and the last one stored a1 = 1
            assertEquals(0, run(c.key(), pairs), c.key() + ": some SC of the probe kernel failed");
            // control: the same SCs with each LR replaced by a nop must fail (bit 0) and store nothing (bit 1)
            int[] noLr = pairs.clone();
            for (int i = 0; i < noLr.length; i += 2) {
                noLr[i] = NOP;
            }
            assertEquals(3, run(c.key() + ".nolr", noLr), c.key() + ": SC without LR should fail");
        }
    }

    /** The kernel's 1024 LR/SC word pairs, read from the probe executable at the kernel's address. */
    private static int[] kernelPairs(ProbeProgram.Probe probe, ProbeProgram.Kernel k) {
        ByteBuffer elf = ByteBuffer.wrap(probe.elf()).order(ByteOrder.LITTLE_ENDIAN);
        int offset = fileOffset(elf, k.address());
        List<Integer> words = new ArrayList<>();
        int p = offset;
        int end = offset + (int) (k.end() - k.address());
        while (p + 4 <= end && !isLr(elf.getInt(p))) {
            p += 4; // the prologue
        }
        while (p + 8 <= end && isLr(elf.getInt(p))) {
            int lr = elf.getInt(p);
            int sc = elf.getInt(p + 4);
            assertTrue(isSc(sc), "an SC follows each LR at 0x" + Long.toHexString(k.address() + p - offset));
            assertEquals(rs1(lr), rs1(sc), "LR and SC reserve the same address");
            assertEquals(8, rs1(sc), "through s0");
            words.add(lr);
            words.add(sc);
            p += 8;
        }
        assertFalse(isSc(elf.getInt(p)), "no SC after the last pair");
        return words.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int fileOffset(ByteBuffer elf, long address) {
        long phoff = elf.getLong(32);
        int phentsize = elf.getShort(54) & 0xffff;
        int phnum = elf.getShort(56) & 0xffff;
        for (int i = 0; i < phnum; i++) {
            int h = (int) phoff + i * phentsize;
            long offset = elf.getLong(h + 8);
            long vaddr = elf.getLong(h + 16);
            long filesz = elf.getLong(h + 32);
            if (elf.getInt(h) == 1 && address >= vaddr && address < vaddr + filesz) {
                return (int) (offset + address - vaddr);
            }
        }
        throw new AssertionError("kernel address 0x" + Long.toHexString(address) + " not in a loaded segment");
    }

    private static boolean isAmo(int w) {
        return (w & 0x7f) == 0x2f;
    }

    private static boolean isLr(int w) {
        return isAmo(w) && (w >>> 27) == 0b00010;
    }

    private static boolean isSc(int w) {
        return isAmo(w) && (w >>> 27) == 0b00011;
    }

    private static int rs1(int w) {
        return (w >>> 15) & 31;
    }

    /**
     * Runs {@code pairs} (word pairs, each followed by an {@code or} of the second word's rd into a3)
     * {@value #LOOPS} times with the probe's register conventions; returns the exit status: a3, plus
     * 2 if the reserved doubleword does not hold a1 afterwards.
     */
    private int run(String name, int[] pairs) throws IOException {
        StringBuilder s = new StringBuilder(".target rv64gc\n.option norvc\n_start:\n");
        s.append("    lla s0, hot\n    li a1, 1\n    li a3, 0\n    li a6, ").append(LOOPS).append('\n');
        s.append("loop:\n");
        for (int i = 0; i < pairs.length; i += 2) {
            int rd = (pairs[i + 1] >>> 7) & 31;
            // placeholders for the exact probe words, overwritten below
            s.append("p").append(i / 2).append(":\n    nop\n    nop\n    or a3, a3, ").append(ABI[rd]).append('\n');
        }
        s.append("    addi a6, a6, -1\n    beqz a6, done\n    j loop\n");
        s.append("done:\n    ld t0, 0(s0)\n    xori t0, t0, 1\n    snez t0, t0\n    slli t0, t0, 1\n    or a3, a3, t0\n");
        s.append("    mv a0, a3\n    li a7, 93\n    ecall\n");
        Assembly asm = Assembler.assemble(s.toString(), name + ".s", TEXT, Map.of("hot", DATA));
        ByteBuffer code = ByteBuffer.wrap(asm.bytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < pairs.length; i += 2) {
            int at = (int) (asm.labels().get("p" + i / 2) - TEXT);
            assertEquals(NOP, code.getInt(at));
            code.putInt(at, pairs[i]).putInt(at + 4, pairs[i + 1]);
        }
        byte[] elf = ExecutableBuilder.build(asm.labels().get("_start"), TEXT, code.array(), DATA, new byte[64], 4096);
        Path p = tmp.resolve(name);
        Files.write(p, elf);
        p.toFile().setExecutable(true);
        Tools.Result r = Tools.run(List.of("qemu-riscv64", p.toString()), "", 60);
        return r.exitCode();
    }
}
