package dev.splice.cli;

import dev.splice.Instrumentation;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code splice profile convert}: an instrumented run's raw counters to fdata in the input's coordinates. */
@Command(name = "convert", mixinStandardHelpOptions = true,
        description = "Turns the raw counters a run of a 'splice instrument' output wrote into BOLT's fdata, in the "
                + "input binary's coordinates: every taken branch and fall-through edge that ran, with its exact count, "
                + "and every direct call site that ran (llvm-bolt --data and merge-fdata read it).")
public final class ProfileConvertCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "OUT", description = "The instrumented binary (it holds the counter map).")
    Path instrumented;

    @Parameters(index = "1", paramLabel = "COUNTERS", description = "The counter file a run of OUT wrote.")
    Path counters;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "PROFILE.fdata", description = "The fdata file to write.")
    Path output;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Instrumentation.Converted c = Instrumentation.convert(instrumented, counters, output);
        spec.commandLine().getErr().printf("%d functions, %d fdata lines%n", c.functions(), c.branchLines());
        spec.commandLine().getErr().flush();
        return Main.OK;
    }
}
