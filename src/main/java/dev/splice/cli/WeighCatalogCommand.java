package dev.splice.cli;

import dev.splice.base.BadInputException;
import dev.splice.base.OutputPaths;
import dev.splice.weigh.ProgramCatalog;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.system.SystemCatalog;
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
            "Run a RISC-V64 Linux program under qemu-riscv64 with the Splice plugin in catalog mode and write, per semantic key (mnemonic with aq/rl, CSR name or fence sets, as the context table keys them), how many instruction slots QEMU translated and how many times they executed. 'splice weigh map' reads it. The exit status is the program's.",
            "With --mode system: a bare-metal image (static ELF at virt's DRAM) on qemu-system-riscv64 -machine virt -bios none, the arguments after the image passed to QEMU; only the image's code is catalogued, CSR instructions keyed with the CSR's privilege (csrrs.mstatus.mmode). Its UART output goes to standard output; the exit status is what it wrote to virt's test device."
        })
public final class WeighCatalogCommand implements Callable<Integer> {
    @Option(names = {"-o", "--output"}, paramLabel = "CATALOG.json", required = true, description = "Catalog file to write.")
    Path out;

    @Option(names = "--mode", paramLabel = "user|system", defaultValue = "user",
            description = "user: a Linux program under qemu-riscv64; system: a bare-metal image on qemu-system-riscv64 (default: ${DEFAULT-VALUE}).")
    String mode;

    @Parameters(arity = "1..*", paramLabel = "PROGRAM [ARGS...]",
            description = "The program and its arguments (after --); in system mode the image and QEMU's options.")
    List<String> command;

    @Override
    public Integer call() {
        OutputPaths.check(out, Path.of(command.get(0)));
        if (mode.equals("system")) {
            SystemCatalog.Run run = SystemCatalog.of(QemuPlugin.locate(), Path.of(command.get(0)),
                    command.subList(1, command.size()));
            System.out.write(run.output(), 0, run.output().length);
            System.out.flush();
            return written(run.catalog());
        }
        if (!mode.equals("user")) {
            throw new BadInputException("unknown mode '" + mode + "' (user or system)");
        }
        QemuRunner.requireExecutable(Path.of(command.get(0)));
        Catalog catalog = ProgramCatalog.of(QemuPlugin.locate(), Path.of(command.get(0)),
                command.subList(1, command.size()), QemuRunner.Streams.inherited());
        return written(catalog);
    }

    private int written(Catalog catalog) {
        catalog.write(out);
        System.err.println("splice: " + catalog.entries().size() + " classes, " + catalog.executed()
                + " instructions executed (exit status " + catalog.origin().exitCode() + "); wrote " + out);
        return catalog.origin().exitCode(); // the program's status, as 'splice run' passes it through
    }
}
