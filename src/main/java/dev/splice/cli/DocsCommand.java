package dev.splice.cli;

import dev.splice.base.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * {@code splice docs}: writes the man pages (AsciiDoc, one per command, for asciidoctor's manpage
 * backend) and the bash completion script, both from the same command model the parser uses, so
 * they cannot drift from {@code --help}. Hidden: {@code make man}, {@code make install} run it.
 */
@Command(name = "docs", hidden = true, mixinStandardHelpOptions = true,
        description = "Writes man pages (AsciiDoc) and the bash completion script from the command model.")
final class DocsCommand implements Callable<Integer> {
    @Option(names = "--man", paramLabel = "DIR", description = "Write one AsciiDoc man page per command into DIR (created).")
    Path manDirectory;

    @Option(names = "--completion", paramLabel = "FILE", description = "Write the bash (and zsh bashcompinit) completion script to FILE ('-': standard output).")
    Path completion;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (manDirectory == null && completion == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --man DIR, --completion FILE or both");
        }
        CommandLine top = spec.commandLine().getParent();
        if (manDirectory != null) {
            Files.createDirectories(manDirectory);
            List<CommandLine.Model.CommandSpec> visible = new ArrayList<>();
            collect(top, visible);
            int status = ManPageGenerator.generateManPage(manDirectory.toFile(), null, new boolean[0], true,
                    visible.toArray(CommandLine.Model.CommandSpec[]::new));
            if (status != 0) {
                throw new IOException("the man page generator failed with status " + status);
            }
        }
        if (completion != null) {
            String script = AutoComplete.bash(top.getCommandName(), top);
            AtomicFiles.writeOrPrint(completion, out -> out.write(script.getBytes(StandardCharsets.UTF_8)));
        }
        return Main.OK;
    }

    /** Every command a user can call, nested ones included; hidden ones (this one) left out. */
    private static void collect(CommandLine command, List<CommandLine.Model.CommandSpec> out) {
        if (command.getCommandSpec().usageMessage().hidden()) {
            return;
        }
        out.add(command.getCommandSpec());
        for (CommandLine sub : command.getSubcommands().values()) {
            collect(sub, out);
        }
    }
}
