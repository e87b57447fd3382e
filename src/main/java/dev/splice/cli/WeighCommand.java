package dev.splice.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code splice weigh}: instruction weights. Each subcommand is its own class; add one by listing it
 * in {@code subcommands} below.
 */
@Command(
        name = "weigh",
        mixinStandardHelpOptions = true,
        description = "Instruction weights under QEMU TCG: model measured pairs into weights, map them onto catalogs.",
        subcommands = {WeighModelCommand.class, WeighMapCommand.class, WeighMeasureCommand.class, WeighCatalogCommand.class,
            WeighContextsCommand.class, WeighPredictCommand.class, WeighReportCommand.class})
public final class WeighCommand implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand; see 'splice weigh --help'.");
    }
}
