package dev.splice.weigh.measure;

import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.probe.ProbeProgram;
import dev.splice.weigh.probe.Window;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongUnaryOperator;

/**
 * How many translation blocks one call of each kernel executes (issue 4: branches, {@code jalr} and
 * CSR accesses end blocks, and a plugin changes how QEMU cuts code). Runs a small probe (every
 * kernel called a few times) with the plugin loaded in count mode, so that blocks are cut as in the
 * plugin passes, and with QEMU's {@code -d exec,nochain} log, which names every executed block's
 * first guest address; blocks starting inside a kernel function are that kernel's.
 */
final class BlockCounter {
    private BlockCounter() {}

    /** Blocks per call, per kernel ({@link ProbeProgram#kernelName}), on QEMU's CPU model {@code cpu} (empty: its default). */
    static Map<String, Double> blocksPerCall(ProbeProgram.Probe probe, Path elf, QemuPlugin plugin, Optional<String> cpu) {
        Path dir = QemuRunner.createTempDirectory("splice-blocks");
        try {
            Path log = dir.resolve("exec.log");
            Path records = dir.resolve("count.records");
            List<String> command = new ArrayList<>(List.of(QemuRunner.QEMU));
            command.addAll(QemuRunner.cpuOptions(cpu));
            command.addAll(List.of("-plugin", plugin.argument(PluginRecords.Mode.COUNT, records, Optional.empty()),
                    "-d", "exec,nochain", "-D", log.toString(), elf.toString()));
            Process p = new ProcessBuilder(command)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            int exit = p.waitFor();
            if (exit != 0) {
                throw new BadInputException(elf + ": the block-count run exited with status " + exit);
            }
            return fromLog(probe, log, LongUnaryOperator.identity());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadInputException("interrupted");
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                // a leftover temporary file is harmless
            }
        }
    }

    /**
     * Blocks per call, per kernel ({@link ProbeProgram#kernelName}), from a {@code -d exec,nochain} log of the probe.
     *
     * @param probe the probe that ran
     * @param log QEMU's log
     * @param probePc the probe's (virtual) address of a logged block's pc (system mode: M-mode code
     *     runs at physical addresses)
     */
    static Map<String, Double> fromLog(ProbeProgram.Probe probe, Path log, LongUnaryOperator probePc) {
        try {
            List<String> names = List.copyOf(probe.kernels().keySet());
            List<ProbeProgram.Kernel> kernels = List.copyOf(probe.kernels().values());
            long[] starts = kernels.stream().mapToLong(ProbeProgram.Kernel::address).toArray();
            long[] blocks = new long[kernels.size()];
            try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.US_ASCII)) {
                String line;
                while ((line = in.readLine()) != null) {
                    long pc = tracePc(line);
                    if (pc < 0) {
                        continue;
                    }
                    pc = probePc.applyAsLong(pc);
                    int i = Arrays.binarySearch(starts, pc);
                    i = i >= 0 ? i : -i - 2;
                    if (i >= 0 && pc < kernels.get(i).end()) {
                        blocks[i]++;
                    }
                }
            }
            Map<String, Long> calls = new LinkedHashMap<>();
            for (Window w : probe.windows()) {
                calls.merge(w.kernel(), (long) w.calls(), Long::sum);
            }
            Map<String, Double> out = new LinkedHashMap<>();
            for (int i = 0; i < kernels.size(); i++) {
                long c = calls.getOrDefault(names.get(i), 0L);
                if (c > 0) {
                    out.put(names.get(i), (double) blocks[i] / c);
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The guest pc of a {@code Trace N: HOST [CS_BASE/PC/FLAGS/CFLAGS]} line, or -1. */
    static long tracePc(String line) {
        if (!line.startsWith("Trace ")) {
            return -1;
        }
        int open = line.indexOf('[');
        if (open < 0) {
            return -1;
        }
        int first = line.indexOf('/', open);
        int second = first < 0 ? -1 : line.indexOf('/', first + 1);
        if (second < 0) {
            return -1;
        }
        try {
            return Long.parseUnsignedLong(line.substring(first + 1, second), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
