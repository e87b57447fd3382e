package dev.splice.cli;

import dev.splice.Instrumentation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code splice instrument}: an instrumented copy whose runs write edge counters (docs/instrument.md). */
@Command(
        name = "instrument",
        mixinStandardHelpOptions = true,
        description = {
            "Writes an instrumented copy of a static RISC-V64 executable linked with -Wl,--emit-relocs: edge counters on "
                    + "the complement of a spanning tree of each function's CFG. Running OUT writes the raw counters at "
                    + "exit to the profile file; 'splice profile convert OUT FILE -o PROFILE.fdata' turns them into "
                    + "fdata in IN's coordinates for llvm-bolt --data.",
            "Functions whose edges cannot be counted exactly are left alone (counted on stderr; --verbose names them)."
        })
public final class InstrumentCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "IN", description = "The input executable (never modified).")
    Path input;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT", description = "The instrumented executable.")
    Path output;

    @Option(names = "--functions", paramLabel = "GLOB",
            description = "Instrument only functions whose name matches the shell glob (* and ?); repeatable. Default: all.")
    List<String> functions = new ArrayList<>();

    @Option(names = "--profile-file", paramLabel = "PATH",
            description = "Where a run writes its raw counters (%%p: the process id; the environment variable "
                    + "SPLICE_COUNTER_FILE overrides it at run time). Default: " + Instrumentation.DEFAULT_COUNTER_FILE + ".")
    String profileFile;

    @Option(names = "--runtime", paramLabel = "FILE.o",
            description = "Link a RISC-V relocatable object (gcc -c, -fno-pic) into the runtime: its __splice_user_exit, "
                    + "if defined, runs at exit before the counters are written. Its undefined names resolve to the "
                    + "runtime's and the program's symbols; what cannot be linked exactly is refused (docs/instrument.md).")
    Path runtime;

    @Option(names = "--verbose", description = "Name every function left alone, with the reason.")
    boolean verbose;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        Instrumentation.Summary s = Instrumentation.instrument(input, output, functions, profileFile, runtime);
        PrintWriter err = spec.commandLine().getErr();
        err.printf("instrumented %d functions: %d counters on %d edges (%s); %d functions left alone%n", s.functions(),
                s.counters(), s.edges(), s.atomic() ? "amoadd.d" : "plain load/add/store", s.skipped().size());
        if (verbose) {
            for (Instrumentation.Skipped k : s.skipped()) {
                err.printf("  %s at 0x%x: %s%n", k.function(), k.address(), k.reason());
            }
        }
        err.flush();
        return Main.OK;
    }
}
