package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.Sysroot;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code splice run}: runs a RISC-V64 executable under qemu-riscv64, optionally counting instructions. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a RISC-V64 Linux executable under qemu-riscv64 (user mode). Standard input, output and error "
                    + "are the program's; the exit status is the program's (128 + N if it died of signal N).",
            "A dynamically linked program (one with PT_INTERP) runs with the sysroot's loader and libraries "
                    + "(--sysroot); shared libraries of its own are found through LD_LIBRARY_PATH as usual "
                    + "(QEMU passes the environment on).",
            "Everything after BINARY is passed to the program, options included."
        })
public final class RunCommand implements Callable<Integer> {
    @Option(names = "--count",
            description = "Report the exact number of executed guest instructions on stderr "
                    + "(Splice QEMU plugin, count mode; single-threaded programs only).")
    boolean count;

    @Option(names = "--json",
            description = "With --count: print the report as one JSON object on stderr "
                    + "({\"binary\", \"exit_code\", \"instructions\"}; instructions is null and \"signal\" "
                    + "is set when the program died of a signal).")
    boolean json;

    @Option(names = "--sysroot", paramLabel = "DIR",
            description = "Where QEMU finds the dynamic loader and shared libraries of a dynamically linked program "
                    + "(qemu-riscv64 -L DIR). Default: $" + Sysroot.ENV + ", else QEMU_LD_PREFIX (left to QEMU), else "
                    + Sysroot.DEFAULT + "; static programs need none.")
    Path sysroot;

    @Option(names = "--cpu", paramLabel = "MODEL",
            description = "QEMU's CPU model and properties (qemu-riscv64 -cpu MODEL), e.g. "
                    + "rv64,v=true,vlen=128,vext_spec=v1.0 for vector code. Default: QEMU's.")
    String cpu;

    @Parameters(index = "0", paramLabel = "BINARY", description = "The RISC-V64 executable.")
    Path binary;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments for the program.")
    List<String> args = new ArrayList<>();

    @Spec
    void spec(CommandSpec spec) {
        // Options after BINARY belong to the program, not to splice.
        spec.parser().stopAtPositional(true);
        this.commandSpec = spec;
    }

    private CommandSpec commandSpec;

    @Override
    public Integer call() throws Exception {
        if (json && !count) {
            throw new picocli.CommandLine.ParameterException(commandSpec.commandLine(), "--json needs --count");
        }
        QemuRunner.requireExecutable(binary);
        QemuRunner.Streams streams = QemuRunner.Streams.inherited();
        Sysroot root = Sysroot.choose(Optional.ofNullable(sysroot));
        if (!count) {
            return QemuRunner.runPlain(binary, args, streams, root, Optional.ofNullable(cpu));
        }
        QemuRunner.CountedRun run = new QemuRunner(QemuPlugin.locate()).withCpu(Optional.ofNullable(cpu))
                .count(binary, args, streams, root);
        PrintWriter err = commandSpec.commandLine().getErr();
        int signal = run.signal();
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            ObjectNode report = mapper.createObjectNode();
            report.put("binary", binary.toString());
            report.put("exit_code", run.exitCode());
            if (run.executedInstructions().isPresent()) {
                report.put("instructions", run.executedInstructions().getAsLong());
            } else {
                report.putNull("instructions");
                report.put("signal", signal);
            }
            err.println(mapper.writeValueAsString(report));
        } else if (run.executedInstructions().isPresent()) {
            err.println("splice: " + run.executedInstructions().getAsLong() + " instructions executed (exit status "
                    + run.exitCode() + ")");
        } else {
            err.println("splice: no instruction count: the program died of signal " + signal
                    + " (QEMU 7.2 runs no plugin exit hook then)");
        }
        err.flush();
        return run.exitCode();
    }
}
