package dev.splice.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code splice help [COMMAND [SUBCOMMAND...]]}: the help of a nested command ({@code splice help
 * bat translate}), where picocli's own help command looks only one level down.
 */
@Command(name = "help", helpCommand = true, mixinStandardHelpOptions = true,
        description = "Shows the help of a command, e.g. 'splice help bat translate'.")
final class HelpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command and its subcommands.")
    List<String> path = List.of();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine command = spec.commandLine().getParent();
        for (String name : path) {
            CommandLine sub = command.getSubcommands().get(name);
            if (sub == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Unknown command '" + name + "' under '"
                        + command.getCommandSpec().qualifiedName() + "'; the commands are "
                        + String.join(", ", command.getSubcommands().keySet()));
            }
            command = sub;
        }
        command.usage(spec.commandLine().getOut(), spec.commandLine().getColorScheme());
        return Main.OK;
    }
}
