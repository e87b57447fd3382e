package dev.splice.weigh.measure;

import dev.splice.base.BadInputException;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.Manifest;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.probe.ProbeProgram;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How a campaign runs its probe executable: the two passes {@link MeasureCampaign} makes of every
 * run, with the plugin (validation, timing) and without it (plugin-off). {@link UserProbeRunner}
 * runs the probe under {@code qemu-riscv64}, {@link SystemProbeRunner} on {@code
 * qemu-system-riscv64} under Splice's monitor (docs/weigh-system.md).
 */
public sealed interface ProbeRunner permits UserProbeRunner, SystemProbeRunner {
    /**
     * Runs the probe with the plugin.
     *
     * @param probe the probe as generated
     * @param elf its executable
     * @param mode the plugin's mode
     * @param out where the probe's standard output (its clock readings) goes
     * @param records where the plugin's record file is copied
     * @return the exit status and the records (none only when the guest died of a signal)
     */
    QemuRunner.Result withPlugin(ProbeProgram.Probe probe, Path elf, PluginRecords.Mode mode, Path out, Path records);

    /**
     * Runs the probe without the plugin.
     *
     * @param probe the probe as generated
     * @param elf its executable
     * @param out where the probe's standard output goes
     * @return the exit status
     */
    int plain(ProbeProgram.Probe probe, Path elf, Path out);

    /**
     * Whether this runner can measure a context.
     *
     * @param context a context
     * @return user mode: the contexts qemu-riscv64 runs; system mode: those and the system-only ones
     */
    boolean measures(Context context);

    /**
     * Translation blocks per kernel call (blocks.json): a run of a small probe of the campaign's
     * kernels with the plugin in count mode (so that blocks are cut as in the plugin passes) and
     * QEMU's {@code -d exec,nochain} log.
     *
     * @param probe the small probe
     * @param elf its executable
     * @return blocks per call, per context
     */
    Map<String, Double> blocksPerCall(ProbeProgram.Probe probe, Path elf);

    /**
     * The contexts of a selection this runner measures together in one probe.
     *
     * @param selected the selected contexts it {@link #measures}
     * @return the selection, or the part of it that can share one probe
     */
    default List<Context> measurable(List<Context> selected) {
        return selected;
    }

    /**
     * How many harts (vCPUs) a probe runs on, which its validation records must show.
     *
     * @param probe the probe
     * @return 1, or 2 for a system-mode probe with a two-hart context
     */
    default int harts(ProbeProgram.Probe probe) {
        return 1;
    }


    /**
     * The mode's name, as the campaign's manifest and run files record it.
     *
     * @return {@link Manifest#USER_MODE} or {@link Manifest#SYSTEM_MODE}
     */
    String mode();

    /**
     * The emulator's command, whose {@code --version} the manifest records.
     *
     * @return {@code qemu-riscv64} or {@code qemu-system-riscv64}
     */
    String emulator();

    /**
     * The runner of a mode on QEMU's default CPU.
     *
     * @param mode {@code user} or {@code system}
     * @param plugin the Splice QEMU plugin
     * @param table the context table (system mode runs a probe in S-mode when it has a system-only context)
     * @return the runner
     * @throws BadInputException for another mode
     */
    static ProbeRunner of(String mode, QemuPlugin plugin, ContextTable table) {
        return switch (mode) {
            case Manifest.USER_MODE -> new UserProbeRunner(plugin);
            case Manifest.SYSTEM_MODE -> new SystemProbeRunner(plugin, table, SystemProbeRunner.PASS_TIMEOUT);
            default -> throw new BadInputException("unknown mode '" + mode + "' (user or system)");
        };
    }
}
