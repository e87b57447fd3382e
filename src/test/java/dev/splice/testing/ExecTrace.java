package dev.splice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every instruction a program executed, from QEMU's exec log ({@code qemu-riscv64 -d exec,nochain
 * -singlestep}: one translation block per instruction, each execution logged): how often each
 * address ran and how often each ordered pair (instruction, next instruction) occurred. The true
 * edge counts of a run, independent of Splice's own profiling.
 *
 * @param stdout what the program printed
 * @param executions per address, how often it ran
 * @param arrivals per address, per address run right before it, how often
 */
public record ExecTrace(String stdout, Map<Long, Long> executions, Map<Long, Map<Long, Long>> arrivals) {
    /** Runs a static RISC-V program under qemu-riscv64 with the exec log and reads it. */
    public static ExecTrace of(Path program, String... args) {
        try {
            Path log = Files.createTempFile("splice-exec", ".log");
            try {
                List<String> command = new ArrayList<>(List.of("qemu-riscv64", "-d", "exec,nochain", "-singlestep", "-D",
                        log.toString(), program.toString()));
                command.addAll(List.of(args));
                Tools.Result r = Tools.run(command, null, 600);
                assertEquals(0, r.exitCode() & 0xff00, "ran " + program + ": " + r.stderr());
                return read(log, r.stdout());
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ExecTrace read(Path log, String stdout) throws IOException {
        Map<Long, Long> executions = new HashMap<>();
        Map<Long, Map<Long, Long>> arrivals = new HashMap<>();
        long previous = -1;
        try (BufferedReader in = Files.newBufferedReader(log)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.startsWith("Trace ")) {
                    continue;
                }
                int a = line.indexOf('/');
                int b = line.indexOf('/', a + 1);
                long pc = Long.parseUnsignedLong(line.substring(a + 1, b), 16);
                executions.merge(pc, 1L, Long::sum);
                if (previous >= 0) {
                    arrivals.computeIfAbsent(pc, k -> new HashMap<>()).merge(previous, 1L, Long::sum);
                }
                previous = pc;
            }
        }
        return new ExecTrace(stdout, executions, arrivals);
    }

    /** {@return how often the instruction at {@code address} ran} */
    public long ran(long address) {
        return executions.getOrDefault(address, 0L);
    }

    /** {@return how often the instruction at {@code next} ran right after the one at {@code address}} */
    public long followed(long address, long next) {
        return arrivals.getOrDefault(next, Map.of()).getOrDefault(address, 0L);
    }

    /** {@return the addresses run right before {@code next}, with how often} */
    public Map<Long, Long> arrivals(long next) {
        return arrivals.getOrDefault(next, Map.of());
    }
}
