package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.PluginFixtures;
import dev.splice.weigh.QemuRunner;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plugin's trace mode against an independent oracle: QEMU without any plugin, one instruction
 * per block, no chaining, logging every instruction it translates ({@code in_asm}: address, bytes,
 * QEMU's own disassembly) and every one it executes, per vCPU ({@code exec}). The oracle walks each
 * vCPU's executed addresses and classifies every step by QEMU's mnemonic: a jump is always a taken
 * branch; a conditional branch is taken when the next address is not the fall-through; anything
 * else going elsewhere is a discontinuity. Ranges run from one taken branch's target to the next
 * taken branch. Both runs see the same environment and a regular file as stdout.
 */
class ProfileRecordOracleTest {
    private static final Set<String> CONDITIONAL = Set.of("beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez",
            "blez", "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu");
    private static final Set<String> JUMPS = Set.of("jal", "jalr", "j", "jr", "ret");
    private static final Pattern IN_ASM = Pattern.compile("^0x([0-9a-f]+):\\s+([0-9a-f]+)\\s+(\\S+)(?:.*# 0x([0-9a-f]+))?");

    /**
     * A thread still spinning when the other calls exit_group: QEMU stops it before the plugin's
     * exit hook, so both traces end where the threads were and are whole: with no discontinuity,
     * every taken branch ends one range and starts the next, so a thread has one range more than
     * branches. (The spin's length depends on timing, so the single-step log is no oracle here.)
     */
    @Test
    void aThreadStillRunningAtExitGroupEndsWhereItWas(@TempDir Path dir) {
        Path out = dir.resolve("guest.out");
        QemuRunner.Streams streams = new QemuRunner.Streams(Redirect.from(new File("/dev/null")), Redirect.to(out.toFile()),
                Redirect.INHERIT);
        QemuRunner.Recorded<TraceRecords> run = PluginFixtures.runner().runRecording(TestPrograms.rv64("spin_at_exit"),
                List.of(), TraceRecords.MODE, Optional.empty(), streams, dev.splice.weigh.Sysroot.choose(Optional.empty()),
                TraceRecords::read);
        assertEquals(7, run.exitCode());
        TraceRecords trace = run.records().orElseThrow();
        assertTrue(trace.exact(), trace.toString());
        assertEquals(2, trace.threads().size());
        for (TraceRecords.ThreadTrace t : trace.threads()) {
            long branches = t.branches().values().stream().mapToLong(Long::longValue).sum();
            long ranges = t.ranges().values().stream().mapToLong(Long::longValue).sum();
            assertTrue(t.discontinuities().isEmpty(), t.toString());
            assertTrue(branches > 1000, "thread " + t.thread() + " ran its loop: " + branches);
            assertEquals(branches + 1, ranges, "thread " + t.thread());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loops.relocs", "exceptions.relocs", "threads_work.relocs", "loops.norvc", "signal_handler.relocs"})
    void everyThreadsTraceIsTheSingleStepLogs(String program, @TempDir Path dir) throws Exception {
        Path binary = TestPrograms.rv64(program);
        Path out = dir.resolve("guest.out");
        QemuRunner.Streams streams = new QemuRunner.Streams(Redirect.from(new File("/dev/null")), Redirect.to(out.toFile()),
                Redirect.INHERIT);
        QemuRunner.Recorded<TraceRecords> run = PluginFixtures.runner().runRecording(binary, List.of(), TraceRecords.MODE,
                Optional.empty(), streams, dev.splice.weigh.Sysroot.choose(Optional.empty()), TraceRecords::read);
        TraceRecords trace = run.records().orElseThrow();
        assertTrue(trace.exact(), "the plugin lost something: " + trace);

        Map<Integer, TraceRecords.ThreadTrace> oracle = oracle(binary, dir);
        assertEquals(oracle.size(), trace.threads().size(), "threads");
        for (TraceRecords.ThreadTrace recorded : trace.threads()) {
            TraceRecords.ThreadTrace expected = oracle.get(recorded.thread());
            assertEquals(expected.branches(), recorded.branches(), program + " thread " + recorded.thread() + ": taken branches");
            assertEquals(expected.ranges(), recorded.ranges(), program + " thread " + recorded.thread() + ": ranges");
            assertEquals(expected.discontinuities(), recorded.discontinuities(),
                    program + " thread " + recorded.thread() + ": discontinuities");
            assertEquals(sum(recorded.branches()) + sum(recorded.discontinuities()) + 1, sum(recorded.ranges()),
                    "every taken branch ends a range and starts the next");
        }
        if (program.startsWith("signal")) {
            // Three signals: into the handler after each kill, and back after each rt_sigreturn.
            assertEquals(6, sum(trace.summed().discontinuities()));
        } else {
            assertTrue(sum(trace.summed().branches()) > (program.startsWith("threads") ? 2000 : 30000), "a real trace");
        }
        if (program.startsWith("threads")) {
            assertEquals(2, trace.threads().size());
            assertEquals(sum(trace.threads().get(0).branches()) + sum(trace.threads().get(1).branches()),
                    sum(trace.summed().branches()), "the sum of the threads");
        }
    }

    private static long sum(Map<TraceRecords.Transfer, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The oracle's trace per vCPU index, from QEMU's single-step log. */
    private static Map<Integer, TraceRecords.ThreadTrace> oracle(Path binary, Path dir) throws IOException, InterruptedException {
        Tools.require(QemuRunner.QEMU);
        Path log = dir.resolve("exec.log");
        Process p = new ProcessBuilder(QemuRunner.QEMU, "-singlestep", "-d", "in_asm,exec,nochain", "-D", log.toString(),
                binary.toString())
                .redirectInput(Redirect.from(new File("/dev/null")))
                .redirectOutput(Redirect.to(dir.resolve("oracle.out").toFile()))
                .redirectError(Redirect.INHERIT)
                .start();
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "qemu-riscv64 -singlestep timed out");
        Map<Long, long[]> sizes = new HashMap<>(); // address -> {size}
        Map<Long, String> mnemonics = new HashMap<>();
        Map<Long, Long> targets = new HashMap<>(); // direct branches and jumps: address -> target
        Map<Integer, Walk> walks = new TreeMap<>();
        try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.ISO_8859_1)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("Trace ")) {
                    int cpu = Integer.parseInt(line.substring(6, line.indexOf(':')));
                    String bracket = line.substring(line.indexOf('[') + 1, line.indexOf(']'));
                    long pc = Long.parseUnsignedLong(bracket.split("/")[1], 16);
                    walks.computeIfAbsent(cpu, c -> new Walk()).step(pc, sizes, mnemonics, targets);
                    continue;
                }
                Matcher m = IN_ASM.matcher(line);
                if (m.find()) {
                    long address = Long.parseUnsignedLong(m.group(1), 16);
                    sizes.put(address, new long[] {m.group(2).length() / 2});
                    mnemonics.put(address, m.group(3).startsWith("c.") ? m.group(3).substring(2) : m.group(3));
                    if (m.group(4) != null) {
                        targets.put(address, Long.parseUnsignedLong(m.group(4), 16));
                    }
                }
            }
        }
        Map<Integer, TraceRecords.ThreadTrace> out = new TreeMap<>();
        walks.forEach((cpu, w) -> out.put(cpu, w.finish(cpu)));
        return out;
    }

    /** One vCPU's executed addresses, turned into branches, ranges and discontinuities as they come. */
    private static final class Walk {
        final Map<TraceRecords.Transfer, Long> branches = new TreeMap<>();
        final Map<TraceRecords.Transfer, Long> ranges = new TreeMap<>();
        final Map<TraceRecords.Transfer, Long> discontinuities = new TreeMap<>();
        boolean started;
        long last;
        long rangeStart;

        void step(long pc, Map<Long, long[]> sizes, Map<Long, String> mnemonics, Map<Long, Long> targets) {
            if (started && pc == last && !Long.valueOf(pc).equals(targets.get(pc))) {
                // QEMU logs a block before the exit-request check at its start; when another thread
                // asks for exclusive work (clone, exit) the block is left before its instruction
                // runs and entered again: the same address twice, once not executed. Only a branch
                // to itself really runs twice in a row.
                return;
            }
            if (!started) {
                started = true;
                rangeStart = pc;
            } else {
                long[] size = sizes.get(last);
                String mnemonic = mnemonics.get(last);
                assertTrue(size != null, "no in_asm line for 0x" + Long.toHexString(last));
                boolean sequential = pc == last + size[0];
                if (JUMPS.contains(mnemonic) || (!sequential && CONDITIONAL.contains(mnemonic))) {
                    branches.merge(new TraceRecords.Transfer(last, pc), 1L, Long::sum);
                } else if (!sequential) {
                    discontinuities.merge(new TraceRecords.Transfer(last, pc), 1L, Long::sum);
                }
                if (JUMPS.contains(mnemonic) || !sequential) {
                    ranges.merge(new TraceRecords.Transfer(rangeStart, last), 1L, Long::sum);
                    rangeStart = pc;
                }
            }
            last = pc;
        }

        TraceRecords.ThreadTrace finish(int cpu) {
            ranges.merge(new TraceRecords.Transfer(rangeStart, last), 1L, Long::sum);
            return new TraceRecords.ThreadTrace(cpu, branches, ranges, discontinuities);
        }
    }
}
