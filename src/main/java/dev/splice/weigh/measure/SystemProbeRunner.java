package dev.splice.weigh.measure;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.Manifest;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.system.SystemImage;
import dev.splice.weigh.system.SystemQemu;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;

/**
 * Runs probes on {@code qemu-system-riscv64} ({@link SystemQemu}): the probe, unchanged, in U-mode
 * under Splice's M-mode monitor and Sv39 paging; its UART output is the probe's standard output.
 * The plugin watches the probe's code range only ({@link SystemQemu#codeRange}).
 *
 * @param plugin the Splice QEMU plugin
 * @param timeout how long one pass may take before it is killed
 */
public record SystemProbeRunner(QemuPlugin plugin, Duration timeout) implements ProbeRunner {
    /** How long one pass may take: a formal probe of every context runs for minutes, not hours. */
    public static final Duration PASS_TIMEOUT = Duration.ofMinutes(30);

    @Override
    public QemuRunner.Result withPlugin(Path probe, PluginRecords.Mode mode, Path out, Path records) {
        SystemImage image = SystemImage.of(ElfFile.read(probe));
        Path dir = temporaryDirectory();
        try {
            Path raw = dir.resolve(mode.argument() + ".records");
            SystemQemu.Result r = SystemQemu.run(image,
                    Optional.of(plugin.argument(mode, raw, Optional.of(SystemQemu.codeRange(image)))), timeout);
            AtomicFiles.write(out, r.output());
            if (!Files.exists(raw)) {
                throw new BadInputException(SystemQemu.QEMU + " exited with status " + r.exitStatus()
                        + " without the plugin's records for " + probe + ": " + r.diagnostics().strip());
            }
            PluginRecords parsed = PluginRecords.read(raw);
            Files.copy(raw, records, StandardCopyOption.REPLACE_EXISTING);
            return new QemuRunner.Result(r.exitStatus(), Optional.of(parsed));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            QemuRunner.deleteRecursively(dir);
        }
    }

    @Override
    public int plain(Path probe, Path out) {
        SystemQemu.Result r = SystemQemu.run(SystemImage.of(ElfFile.read(probe)), Optional.empty(), timeout);
        AtomicFiles.write(out, r.output());
        return r.exitStatus();
    }

    @Override
    public String mode() {
        return Manifest.SYSTEM_MODE;
    }

    @Override
    public String emulator() {
        return SystemQemu.QEMU;
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("splice-system-records-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
