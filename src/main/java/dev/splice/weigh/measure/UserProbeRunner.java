package dev.splice.weigh.measure;

import dev.splice.weigh.Context;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.Sysroot;
import dev.splice.weigh.campaign.Manifest;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.probe.ProbeProgram;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs probes under {@code qemu-riscv64} (user mode), on QEMU's default CPU or on a given model.
 *
 * @param plugin the Splice QEMU plugin
 * @param cpu QEMU's {@code -cpu} model (e.g. {@code rv64,v=true,vlen=128,vext_spec=v1.0}), empty for its default
 */
public record UserProbeRunner(QemuPlugin plugin, Optional<String> cpu) implements ProbeRunner {
    /**
     * A runner on QEMU's default CPU.
     *
     * @param plugin the Splice QEMU plugin
     */
    public UserProbeRunner(QemuPlugin plugin) {
        this(plugin, Optional.empty());
    }

    @Override
    public QemuRunner.Result withPlugin(ProbeProgram.Probe probe, Path elf, PluginRecords.Mode mode, Path out,
            Path records) {
        return new QemuRunner(plugin).withCpu(cpu).run(elf, List.of(), mode, Optional.empty(), streams(out),
                Optional.of(records));
    }

    @Override
    public int plain(ProbeProgram.Probe probe, Path elf, Path out) {
        return QemuRunner.runPlain(elf, List.of(), streams(out), Sysroot.choose(Optional.empty()), cpu);
    }

    @Override
    public Map<String, Double> blocksPerCall(ProbeProgram.Probe probe, Path elf) {
        return BlockCounter.blocksPerCall(probe, elf, plugin, cpu);
    }

    @Override
    public boolean measures(Context context) {
        // a context that names a CPU model runs on that model only; the others on any
        return context.runsOnQemu() && (context.cpu().isEmpty() || context.cpu().equals(cpu));
    }

    @Override
    public String mode() {
        return Manifest.USER_MODE;
    }

    @Override
    public String emulator() {
        return QemuRunner.QEMU;
    }

    private static QemuRunner.Streams streams(Path out) {
        return new QemuRunner.Streams(Redirect.PIPE, Redirect.to(out.toFile()), Redirect.INHERIT);
    }
}
