package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.campaign.PluginRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Runs the plugin the Makefile built and the independent oracles the plugin tests compare against. */
public final class PluginFixtures {
    private PluginFixtures() {}

    /** The plugin `make plugin` built; missing fails the test. */
    public static Path pluginLibrary() {
        // SPLICE_PLUGIN (as QemuPlugin.locate reads it) tests a plugin built elsewhere
        String env = System.getenv("SPLICE_PLUGIN");
        Path p = env != null && !env.isEmpty() ? Path.of(env) : TestPrograms.root().resolve(QemuPlugin.RELATIVE_PATH);
        assertTrue(Files.isRegularFile(p), p + " is missing: run 'make plugin' (make test does)");
        return p;
    }

    public static QemuRunner runner() {
        Tools.require(QemuRunner.QEMU);
        return new QemuRunner(QemuPlugin.at(pluginLibrary()));
    }

    /**
     * Runs a test program under the plugin. Its stdout goes to a regular file, as in
     * {@link #singleStepCount}: the C library behaves differently on /dev/null or a pipe.
     */
    public static QemuRunner.Result run(PluginRecords.Mode mode, Path binary, String... args) {
        try {
            Path out = Files.createTempFile("splice-guest", ".out");
            try {
                QemuRunner.Streams streams = new QemuRunner.Streams(
                        Redirect.from(new java.io.File("/dev/null")), Redirect.to(out.toFile()), Redirect.INHERIT);
                return runner().run(binary, List.of(args), mode, Optional.empty(), streams);
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The independent count: QEMU without any plugin, one instruction per translation block and no
     * chaining, logging every block it executes ({@code -singlestep -d exec,nochain}).
     */
    public static long singleStepCount(Path binary, String... args) {
        try {
            Path log = Files.createTempFile("splice-exec", ".log");
            try {
                List<String> command = new ArrayList<>(List.of(QemuRunner.QEMU, "-singlestep", "-d", "exec,nochain",
                        "-D", log.toString(), binary.toString()));
                command.addAll(List.of(args));
                Tools.run(command, null, 300);
                try (Stream<String> lines = Files.lines(log)) {
                    return lines.filter(l -> l.startsWith("Trace ")).count();
                }
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The guest PCs QEMU executed, in order, from its single-step exec log (no plugin): the
     * second field of each "Trace" line's bracket.
     */
    public static List<Long> singleStepPcs(Path binary, String... args) {
        return singleStepPcs(List.of(), binary, args);
    }

    /**
     * The same, with QEMU options before the binary ({@code -L SYSROOT} for a dynamic binary,
     * {@code -E VAR=VALUE} for the guest's environment).
     */
    public static List<Long> singleStepPcs(List<String> qemuOptions, Path binary, String... args) {
        try {
            Path log = Files.createTempFile("splice-exec", ".log");
            try {
                List<String> command = new ArrayList<>(List.of(QemuRunner.QEMU, "-singlestep", "-d", "exec,nochain",
                        "-D", log.toString()));
                command.addAll(qemuOptions);
                command.add(binary.toString());
                command.addAll(List.of(args));
                Tools.run(command, null, 300);
                List<Long> pcs = new ArrayList<>();
                try (Stream<String> lines = Files.lines(log)) {
                    lines.filter(l -> l.startsWith("Trace ")).forEach(l -> {
                        String bracket = l.substring(l.indexOf('[') + 1, l.indexOf(']'));
                        pcs.add(Long.parseUnsignedLong(bracket.split("/")[1], 16));
                    });
                }
                return pcs;
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every instruction GNU objdump disassembles in {@code binary}: address to {encoding, size}. */
    public static java.util.Map<Long, long[]> objdumpInstructions(Path binary) {
        Tools.Result r = Tools.run("riscv64-linux-gnu-objdump", "-d", binary.toString()).checked("objdump");
        java.util.Map<Long, long[]> m = new java.util.HashMap<>();
        for (String line : r.stdout().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2 && f[0].matches("[0-9a-f]+:") && f[1].matches("[0-9a-f]{4}|[0-9a-f]{8}")) {
                m.put(Long.parseLong(f[0].substring(0, f[0].length() - 1), 16),
                        new long[] {Long.parseLong(f[1], 16), f[1].length() / 2});
            }
        }
        return m;
    }

    private static final Pattern ENCODING = Pattern.compile("encoding: \\[([^\\]]*)\\]");

    /** The encoding of one instruction as llvm-mc-22 assembles it, little-endian bytes to a number. */
    public static long llvmMcEncoding(String instruction, String attributes) {
        Tools.Result r = Tools.run(List.of("llvm-mc-22", "--triple=riscv64", "-mattr=" + attributes, "-show-encoding"),
                instruction + "\n", 60).checked("llvm-mc-22 " + instruction);
        Matcher m = ENCODING.matcher(r.stdout());
        if (!m.find()) {
            fail("no encoding from llvm-mc-22 for " + instruction + ":\n" + r.stdout());
        }
        String[] bytes = m.group(1).split(",");
        long value = 0;
        for (int i = 0; i < bytes.length; i++) {
            value |= Long.parseLong(bytes[i].trim().substring(2), 16) << (8 * i);
        }
        return value;
    }

    /** Size in bytes of what llvm-mc-22 assembles {@code instruction} to. */
    public static int llvmMcSize(String instruction, String attributes) {
        Tools.Result r = Tools.run(List.of("llvm-mc-22", "--triple=riscv64", "-mattr=" + attributes, "-show-encoding"),
                instruction + "\n", 60).checked("llvm-mc-22 " + instruction);
        Matcher m = ENCODING.matcher(r.stdout());
        assertTrue(m.find(), r.stdout());
        return m.group(1).split(",").length;
    }

    /** Addresses of the lines of GNU objdump's disassembly of {@code binary} that contain {@code text}. */
    public static List<Long> objdumpAddresses(Path binary, String text) {
        Tools.Result r = Tools.run("riscv64-linux-gnu-objdump", "-d", binary.toString()).checked("objdump");
        List<Long> addresses = new ArrayList<>();
        for (String line : r.stdout().split("\n")) {
            String trimmed = line.trim();
            int colon = trimmed.indexOf(':');
            if (colon > 0 && line.contains(text) && trimmed.substring(0, colon).matches("[0-9a-f]+")) {
                addresses.add(Long.parseLong(trimmed.substring(0, colon), 16));
            }
        }
        return addresses;
    }

    /** The machine word GNU objdump shows on the instruction line at {@code address}. */
    public static long objdumpWord(Path binary, long address) {
        Tools.Result r = Tools.run("riscv64-linux-gnu-objdump", "-d", binary.toString()).checked("objdump");
        String prefix = Long.toHexString(address) + ":";
        for (String line : r.stdout().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2 && f[0].equals(prefix)) {
                return Long.parseLong(f[1], 16);
            }
        }
        fail("objdump shows no instruction at 0x" + Long.toHexString(address));
        return 0;
    }

    public static void assertClean(PluginRecords records) {
        assertEquals(0, records.footer().translationFailures(), "translation failures");
        assertEquals(0, records.footer().timerFailures(), "timer failures");
        assertEquals(0, records.footer().openWindows(), "open windows");
        assertEquals(1, records.footer().vcpus(), "vCPUs");
    }
}
