package dev.splice.cli;

import dev.splice.base.OutputPaths;
import dev.splice.weigh.ProgramCatalog;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.Catalog;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice weigh catalog -o CATALOG.json -- PROGRAM [ARGS...]}. */
@Command(
        name = "catalog",
        mixinStandardHelpOptions = true,
        description = {
            "Run a RISC-V64 Linux program under qemu-riscv64 with the Splice plugin in catalog mode and write, per semantic key (mnemonic with aq/rl, CSR name or fence sets, as the context table keys them), how many instruction slots QEMU translated and how many times they executed. 'splice weigh map' reads it. The exit status is the program's."
        })
public final class WeighCatalogCommand implements Callable<Integer> {
    @Option(names = {"-o", "--output"}, paramLabel = "CATALOG.json", required = true, description = "Catalog file to write.")
    Path out;

    @Parameters(arity = "1..*", paramLabel = "PROGRAM [ARGS...]", description = "The program and its arguments (after --).")
    List<String> command;

    @Override
    public Integer call() {
        OutputPaths.check(out, Path.of(command.get(0)));
        QemuRunner.requireExecutable(Path.of(command.get(0)));
        Catalog catalog = ProgramCatalog.of(QemuPlugin.locate(), Path.of(command.get(0)),
                command.subList(1, command.size()), QemuRunner.Streams.inherited());
        catalog.write(out);
        System.err.println("splice: " + catalog.entries().size() + " classes, " + catalog.executed()
                + " instructions executed (exit status " + catalog.origin().exitCode() + "); wrote " + out);
        return catalog.origin().exitCode(); // the program's status, as 'splice run' passes it through
    }
}
