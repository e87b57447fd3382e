package dev.splice.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code splice profile}: BOLT profiles of RISC-V programs; the work is in its subcommands. */
@Command(name = "profile", mixinStandardHelpOptions = true,
        description = "Make BOLT profiles (fdata) of RISC-V64 programs, where no LBR exists.",
        subcommands = {ProfileRecordCommand.class, ProfileConvertCommand.class})
public final class ProfileCommand implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing subcommand; see 'splice profile --help'.");
    }
}
