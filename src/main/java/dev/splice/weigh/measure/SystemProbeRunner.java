package dev.splice.weigh.measure;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.Manifest;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.probe.ProbeProgram;
import dev.splice.weigh.system.SystemImage;
import dev.splice.weigh.system.SystemQemu;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs probes on {@code qemu-system-riscv64} ({@link SystemQemu}): the probe, unchanged, in U-mode
 * under Splice's M-mode monitor and Sv39 paging; its UART output is the probe's standard output.
 * The plugin watches the probe's code range only ({@link SystemQemu#codeRange}). A probe with a
 * system-only context runs in S-mode, with the traps of its kernels returning at once
 * (docs/weigh-system.md); any other probe runs in U-mode.
 *
 * @param plugin the Splice QEMU plugin
 * @param table the context table the probes come from
 * @param timeout how long one pass may take before it is killed
 */
public record SystemProbeRunner(QemuPlugin plugin, ContextTable table, Duration timeout) implements ProbeRunner {
    /** How long one pass may take: a formal probe of every context runs for minutes, not hours. */
    public static final Duration PASS_TIMEOUT = Duration.ofMinutes(30);
    private static final long PAGE = 4096;

    @Override
    public QemuRunner.Result withPlugin(ProbeProgram.Probe probe, Path elf, PluginRecords.Mode mode, Path out,
            Path records) {
        SystemImage image = image(probe, elf);
        Path dir = QemuRunner.createTempDirectory("splice-system-records-");
        try {
            Path raw = dir.resolve(mode.argument() + ".records");
            SystemQemu.Result r = SystemQemu.run(image,
                    Optional.of(plugin.argument(mode, raw, Optional.of(SystemQemu.codeRange(image)))), timeout);
            AtomicFiles.write(out, r.output());
            if (!Files.exists(raw)) {
                throw new BadInputException(SystemQemu.QEMU + " exited with status " + r.exitStatus()
 + " without the plugin's records for " + elf + ": " + r.diagnostics().strip());
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
    public int plain(ProbeProgram.Probe probe, Path elf, Path out) {
        SystemQemu.Result r = SystemQemu.run(image(probe, elf), Optional.empty(), timeout);
        AtomicFiles.write(out, r.output());
        return r.exitStatus();
    }

    /** Counted on qemu-system-riscv64 in the image the passes run, M-mode blocks at their executable addresses. */
    @Override
    public Map<String, Double> blocksPerCall(ProbeProgram.Probe probe, Path elf) {
        SystemImage image = image(probe, elf);
        Path dir = QemuRunner.createTempDirectory("splice-system-blocks-");
        try {
            Path log = dir.resolve("exec.log");
            Path records = dir.resolve("count.records");
            QemuPlugin.CodeRange range = SystemQemu.codeRange(image);
            // -dfilter: only the probe's blocks are logged (a second hart's endless loop would fill the log)
            String filter = "0x" + Long.toHexString(range.minPc()) + "..0x" + Long.toHexString(range.maxPc() - 1);
            SystemQemu.Result r = SystemQemu.run(image, Optional.of(plugin.argument(PluginRecords.Mode.COUNT, records,
                    Optional.of(range))), timeout, List.of("-d", "exec,nochain", "-dfilter", filter, "-D", log.toString()));
            if (r.exitStatus() != 0) {
                throw new BadInputException(elf + ": the block-count run exited with status " + r.exitStatus() + ": "
                        + r.diagnostics().strip());
            }
            return BlockCounter.fromLog(probe, log, image::executableAddress);
        } finally {
            QemuRunner.deleteRecursively(dir);
        }
    }

    @Override
    public boolean measures(Context context) {
        return (context.runsOnQemu() || context.systemOnly()) && context.cpu().isEmpty(); // on the default CPU
    }

    /**
     * Two-hart contexts ({@code harts=2}) run their probe on two harts, the second contending all
     * along; so they share a probe only with each other: in a selection with other contexts they
     * are left out (a campaign of their own measures them, {@code --contexts '*.smp2.*'}).
     */
    @Override
    public List<Context> measurable(List<Context> selected) {
        boolean others = selected.stream().anyMatch(c -> c.harts() == 1);
        return others ? selected.stream().filter(c -> c.harts() == 1).toList() : selected;
    }

    @Override
    public int harts(ProbeProgram.Probe probe) {
        return probe.kernels().values().stream().mapToInt(k -> table.context(k.context()).map(Context::harts).orElse(1)).max()
                .orElse(1);
    }

    /** S-mode when a kernel's context needs it; traps return at once from the first kernel's address on. */
    private SystemImage image(ProbeProgram.Probe probe, Path elf) {
        SystemImage image = imageOnOneHart(probe, elf);
        return harts(probe) == 2 ? image.onTwoHarts() : image;
    }

    private SystemImage imageOnOneHart(ProbeProgram.Probe probe, Path elf) {
        boolean supervisor = probe.kernels().values().stream()
                .anyMatch(k -> table.context(k.context()).map(Context::systemOnly).orElse(false));
        if (!supervisor) {
            return SystemImage.of(ElfFile.read(elf));
        }
        long kernels = probe.kernels().values().stream().mapToLong(ProbeProgram.Kernel::address).min().orElse(-1);
        List<ProbeProgram.Kernel> machine = probe.kernels().values().stream()
                .filter(k -> table.context(k.context()).map(Context::machineMode).orElse(false)).toList();
        if (machine.isEmpty()) {
            return SystemImage.of(ElfFile.read(elf), SystemImage.Privilege.SUPERVISOR, kernels);
        }
        return SystemImage.withMachineCode(ElfFile.read(elf), kernels, machineCode(probe, machine));
    }

    /** The pages of the M-mode kernels (and their setups), which the probe lays out together on pages of their own. */
    private static SystemImage.MachineCode machineCode(ProbeProgram.Probe probe, List<ProbeProgram.Kernel> machine) {
        long start = machine.stream().mapToLong(ProbeProgram.Kernel::setup).min().orElseThrow() & -PAGE;
        long end = (machine.stream().mapToLong(ProbeProgram.Kernel::end).max().orElseThrow() + PAGE - 1) & -PAGE;
        for (ProbeProgram.Kernel k : probe.kernels().values()) {
            if (!machine.contains(k) && k.address() >= start && k.address() < end) {
                throw new IllegalStateException(k.context() + " lies among the M-mode kernels (its rows must not be "
                        + "between the M-mode rows of the context table)");
            }
        }
        return new SystemImage.MachineCode(start, end);
    }

    @Override
    public String mode() {
        return Manifest.SYSTEM_MODE;
    }

    @Override
    public String emulator() {
        return SystemQemu.QEMU;
    }

}
