package dev.splice.weigh.system;

import dev.splice.base.BadInputException;
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
     */
    public record Result(int exitStatus, byte[] output, String diagnostics) {}

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
        Path dir = null;
        try {
            dir = Files.createTempDirectory("splice-system-");
            Path monitor = dir.resolve("monitor.elf");
            Files.write(monitor, image.monitor());
            Path serial = dir.resolve("serial.out");
            Path errors = dir.resolve("qemu.err");
            List<String> command = new ArrayList<>(List.of(QEMU, "-machine", "virt", "-nographic", "-smp", "1", "-bios", "none",
                    "-m", (SystemImage.RAM_BYTES >> 20) + "M", "-monitor", "none", "-serial", "file:" + serial, "-kernel",
                    monitor.toString()));
            for (int i = 0; i < image.loads().size(); i++) {
                SystemImage.Load load = image.loads().get(i);
                Path blob = dir.resolve("segment-" + i + ".bin");
                Files.write(blob, load.bytes());
                command.add("-device");
                command.add("loader,file=" + blob + ",addr=0x" + Long.toHexString(load.physicalAddress()) + ",force-raw=on");
            }
            plugin.ifPresent(p -> {
                command.add("-plugin");
                command.add(p);
            });
            Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errors.toFile()).start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new BadInputException(QEMU + " did not finish within " + timeout.toSeconds() + " s (the executable hangs?)");
            }
            byte[] output = Files.exists(serial) ? Files.readAllBytes(serial) : new byte[0];
            return new Result(process.exitValue(), output, Files.readString(errors));
        } catch (IOException e) {
            throw new BadInputException("cannot run " + QEMU + ": " + e.getMessage() + " (install qemu-system-misc)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadInputException(QEMU + " was interrupted", e);
        } finally {
            if (dir != null) {
                QemuRunner.deleteRecursively(dir);
            }
        }
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
