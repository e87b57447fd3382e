package dev.splice.weigh.system;

import dev.splice.base.BadInputException;
import dev.splice.weigh.CpuAffinity;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link SystemImage} on {@code qemu-system-riscv64 -machine virt -nographic -smp 1 -bios
 * none}: the monitor as {@code -kernel}, each segment through {@code -device loader}, the UART into
 * a file (the executable's standard output, byte for byte: no terminal in between), no monitor
 * console. The Splice plugin, when given, watches the executable's code range only.
 */
public final class SystemQemu {
    /** The system emulator's command (Debian package qemu-system-misc). */
    public static final String QEMU = "qemu-system-riscv64";

    /**
     * A finished run.
     *
     * @param exitStatus QEMU's exit status: the executable's {@code exit} status, or
     *     {@link SystemImage#TRAP_STATUS_BASE} + mcause after another trap
     * @param output what the executable wrote (its standard output)
     * @param diagnostics QEMU's own standard error
     * @param hartCpus the host CPU each hart's thread was confined to in a run of several harts
     *     ({@link HartPinning}); empty on one hart
     */
    public record Result(int exitStatus, byte[] output, String diagnostics, List<Integer> hartCpus) {}

    private SystemQemu() {}

    /**
     * Runs the image to its end.
     *
     * @param image the image
     * @param plugin the plugin's {@code -plugin} value ({@link QemuPlugin#argument}), if any
     * @param timeout how long the run may take before it is killed
     * @return the exit status and the output
     * @throws BadInputException when QEMU cannot be started or the run times out
     */
    public static Result run(SystemImage image, Optional<String> plugin, Duration timeout) {
        return run(image, plugin, timeout, List.of());
    }

    /**
     * Runs the image to its end with more options for QEMU (e.g. {@code -d exec,nochain -D LOG}).
     *
     * @param image the image
     * @param plugin the plugin's {@code -plugin} value ({@link QemuPlugin#argument}), if any
     * @param timeout how long the run may take before it is killed
     * @param qemuOptions the options, added after the image's
     * @return the exit status and the output
     * @throws BadInputException when QEMU cannot be started or the run times out
     */
    public static Result run(SystemImage image, Optional<String> plugin, Duration timeout, List<String> qemuOptions) {
        Path dir = QemuRunner.createTempDirectory("splice-system-");
        try {
            Path monitor = dir.resolve("monitor.elf");
            Files.write(monitor, image.monitor());
            List<String> options = new ArrayList<>(List.of("-m", (SystemImage.RAM_BYTES >> 20) + "M", "-kernel",
                    monitor.toString()));
            for (int i = 0; i < image.loads().size(); i++) {
                SystemImage.Load load = image.loads().get(i);
                Path blob = dir.resolve("segment-" + i + ".bin");
                Files.write(blob, load.bytes());
                options.add("-device");
                options.add("loader,file=" + blob + ",addr=0x" + Long.toHexString(load.physicalAddress()) + ",force-raw=on");
            }
            options.addAll(List.of("-smp", Integer.toString(image.harts())));
            if (image.harts() > 1) {
                options.addAll(List.of("-accel", "tcg,thread=multi")); // one host thread per hart: they run at once
            }
            options.addAll(qemuOptions);
            return execute(dir, options, plugin, timeout, image.harts());
        } catch (IOException e) {
            throw new BadInputException("cannot run " + QEMU + ": " + e.getMessage() + " (install qemu-system-misc)", e);
        } finally {
            QemuRunner.deleteRecursively(dir);
        }
    }

    /**
     * Runs a bare-metal ELF image of one's own ({@code -kernel IMAGE}: QEMU loads its segments at
     * their physical addresses and starts at DRAM's first byte in M-mode) to its end.
     *
     * @param image the image
     * @param qemuOptions more options for QEMU (e.g. {@code -smp 2}, {@code -m 512M})
     * @param plugin the plugin's {@code -plugin} value, if any
     * @param timeout how long the run may take before it is killed
     * @return the exit status (what the image wrote to virt's test device) and the UART output
     * @throws BadInputException when QEMU cannot be started or the run times out
     */
    public static Result runImage(Path image, List<String> qemuOptions, Optional<String> plugin, Duration timeout) {
        Path dir = QemuRunner.createTempDirectory("splice-system-");
        try {
            List<String> options = new ArrayList<>(qemuOptions);
            options.add("-kernel");
            options.add(image.toAbsolutePath().toString());
            return execute(dir, options, plugin, timeout, 1);
        } catch (IOException e) {
            throw new BadInputException("cannot run " + QEMU + ": " + e.getMessage() + " (install qemu-system-misc)", e);
        } finally {
            QemuRunner.deleteRecursively(dir);
        }
    }

    /**
     * virt, one hart unless the options say otherwise, no firmware, the UART into a file, no monitor
     * console. Several harts ({@code harts} > 1) run on every online CPU, each hart's thread on a CPU
     * of its own ({@link HartPinning}): a campaign pins its timed passes to one CPU, and QEMU
     * inherits that, so two harts on one CPU would never run at the same time.
     */
    private static Result execute(Path dir, List<String> options, Optional<String> plugin, Duration timeout,
            int harts) throws IOException {
        Path serial = dir.resolve("serial.out");
        Path errors = dir.resolve("qemu.err");
        Path qmp = dir.resolve("qmp.sock");
        List<String> command = new ArrayList<>();
        if (harts > 1) {
            command.addAll(List.of("taskset", "-c", Files.readString(CpuAffinity.ONLINE).strip()));
        }
        command.addAll(List.of(QEMU, "-machine", "virt", "-nographic"));
        if (!options.contains("-smp")) {
            command.addAll(List.of("-smp", "1"));
        }
        command.addAll(List.of("-bios", "none", "-monitor", "none", "-serial", "file:" + serial));
        if (harts > 1) {
            command.addAll(HartPinning.qemuOptions(qmp));
        }
        command.addAll(options);
        plugin.ifPresent(p -> {
            command.add("-plugin");
            command.add(p);
        });
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errors.toFile()).start();
        List<Integer> hartCpus = List.of();
        try {
            if (harts > 1) {
                hartCpus = HartPinning.start(process, qmp, harts, timeout);
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new BadInputException(QEMU + " did not finish within " + timeout.toSeconds() + " s (the executable hangs?)");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new BadInputException(QEMU + " was interrupted", e);
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly(); // stopped (-S) or running without end: it must not outlive the run
            throw e;
        }
        byte[] output = Files.exists(serial) ? Files.readAllBytes(serial) : new byte[0];
        return new Result(process.exitValue(), output, Files.readString(errors), hartCpus);
    }

    /**
     * The code range the plugin should watch for {@code image}: the executable's own code.
     *
     * @param image the image
     * @return the range
     */
    public static QemuPlugin.CodeRange codeRange(SystemImage image) {
        return new QemuPlugin.CodeRange(image.codeStart(), image.codeEnd());
    }
}
