package dev.splice.cli;

import dev.splice.base.BadInputException;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.campaign.CampaignLayout;
import dev.splice.weigh.measure.MeasureCampaign;
import dev.splice.weigh.measure.MeasureOptions;
import dev.splice.weigh.measure.ProbeRunner;
import dev.splice.weigh.measure.UserProbeRunner;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code splice weigh measure}. */
@Command(
        name = "measure",
        mixinStandardHelpOptions = true,
        description = {
            "Measure instruction costs under qemu-riscv64 (or, with --mode system, qemu-system-riscv64) with probe kernels against same-shape baselines.",
            "Each run is one generated probe executable run three times: a validation pass (the plugin proves that the target ran exactly batch times and that probe minus baseline closes), a timing pass (plugin thread-CPU clocks at the markers) and a plugin-off pass (the guest's own clock only). Writes manifest.json, pairs.jsonl, pairs-off.jsonl, closure.json and runs/RUN/* (docs/formats.md)."
        })
public final class WeighMeasureCommand implements Callable<Integer> {
    @Option(names = "--contexts", paramLabel = "PATTERNS",
            description = "Comma-separated context globs, e.g. 'div*,addi.*' (default: the profile's).")
    String contexts;

    @Option(names = "--profile", paramLabel = "quick|formal", defaultValue = "quick",
            description = "quick: a few contexts, 2 runs x 4 rounds; formal: all contexts, 12 runs x 30 rounds; both windows of 1, 4 and 16 kernel calls (of 1024 slots for cheap contexts, fewer for costly ones: --window-us; default: ${DEFAULT-VALUE}).")
    String profile;

    @Option(names = "--window-us", paramLabel = "US", defaultValue = "32",
            description = "Longest window's target duration: a pilot pass times every kernel and gives each context the largest power-of-two slots per kernel call (up to 1024) whose 16-call window stays within it, so that few windows are hit by a host interrupt; recorded in design.json. 0: every kernel at 1024 slots (the design before session 9; default: ${DEFAULT-VALUE}).")
    long windowUs;

    @Option(names = "--runs", paramLabel = "N", description = "Independent QEMU runs (default: the profile's).")
    Integer runs;

    @Option(names = "--rounds", paramLabel = "R", description = "Probe rounds per run (default: the profile's).")
    Integer rounds;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Campaign seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--resume", description = "Keep runs already finished in the output directory.")
    boolean resume;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "1",
            description = "Validation passes in parallel (timing passes always run alone; default: ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--mode", paramLabel = "user|system", defaultValue = "user",
            description = "user: probes under qemu-riscv64; system: the same probes in U-mode on qemu-system-riscv64 under Splice's M-mode monitor, "
                    + "loads and stores through the softmmu TLB (docs/weigh-system.md; default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--cpu", paramLabel = "MODEL",
            description = "qemu-riscv64's -cpu model (user mode), e.g. rv64,v=true,vlen=128,vext_spec=v1.0: the contexts "
                    + "whose cpu= modifier names this model are measured too, the other CPU-bound ones are left out; manifest.json and run.json record it as qemu_cpu (docs/contexts.md: one model per campaign).")
    Optional<String> cpu = Optional.empty();

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", required = true, description = "Campaign directory.")
    Path out;

    @Override
    public Integer call() {
        MeasureOptions options = MeasureOptions.of(profile, contexts, runs, rounds, seed, resume, jobs, out, windowUs * 1000);
        ProgressBar[] bar = new ProgressBar[1];
        QemuPlugin plugin = QemuPlugin.locate();
        ContextTable table = ContextTable.load();
        ProbeRunner runner = ProbeRunner.of(mode, plugin, table);
        if (cpu.isPresent()) {
            if (!(runner instanceof UserProbeRunner)) {
                throw new BadInputException("--cpu is for --mode user (the system-mode probes run on the default CPU)");
            }
            runner = new UserProbeRunner(plugin, cpu);
        }
        MeasureCampaign.Result result = new MeasureCampaign(options, table, plugin, runner,
                (done, total) -> {
                    if (bar[0] == null) {
                        bar[0] = new ProgressBar(System.err, "measure passes", Math.max(total, 1));
                    }
                    bar[0].update(total == 0 ? 1 : done);
                }).run();
        result.redone().forEach(line -> System.err.println("splice: " + line));
        System.out.println(result.runs() + " runs (" + result.resumedRuns() + " resumed), " + result.pairs() + " pairs, "
                + result.windows() + " windows; validation " + (result.closed() ? "closed" : "NOT closed")
                + "; wrote " + result.dir());
        if (!result.closed()) {
            System.err.println("splice: validation did not close: see " + new CampaignLayout(result.dir()).closure());
            return Main.BAD_INPUT;
        }
        return Main.OK;
    }
}
