package dev.splice.weigh.measure;

import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.PluginRecords;
import java.nio.file.Path;

/**
 * How a campaign runs its probe executable: the two passes {@link MeasureCampaign} makes of every
 * run, with the plugin (validation, timing) and without it (plugin-off). {@link UserProbeRunner}
 * runs the probe under {@code qemu-riscv64}.
 */
public sealed interface ProbeRunner permits UserProbeRunner {
    /**
     * Runs the probe with the plugin.
     *
     * @param probe the probe executable
     * @param mode the plugin's mode
     * @param out where the probe's standard output (its clock readings) goes
     * @param records where the plugin's record file is copied
     * @return the exit status and the records (none only when the guest died of a signal)
     */
    QemuRunner.Result withPlugin(Path probe, PluginRecords.Mode mode, Path out, Path records);

    /**
     * Runs the probe without the plugin.
     *
     * @param probe the probe executable
     * @param out where the probe's standard output goes
     * @return the exit status
     */
    int plain(Path probe, Path out);

}
