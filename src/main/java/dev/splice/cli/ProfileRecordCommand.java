package dev.splice.cli;

import dev.splice.Profiles;
import dev.splice.profile.ProfileRecorder;
import dev.splice.weigh.QemuRunner;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code splice profile record}: an exact branch profile of one run under QEMU. */
@Command(name = "record", mixinStandardHelpOptions = true,
        description = {
            "Run a RISC-V64 executable under qemu-riscv64 with the Splice plugin in trace mode and write the complete"
                    + " branch trace of all its threads (every taken branch and every fall-through range, exact) as"
                    + " BOLT's fdata in the binary's coordinates, as perf2bolt-22 aggregates the same trace, or as"
                    + " perf2bolt's pre-aggregated B/F records. For a BOLTed binary with BAT the fdata is in the input"
                    + " binary's coordinates.",
            "The program's standard streams are the caller's. The exit status is the program's (128 + N if it died of"
                    + " signal N: then QEMU writes no trace and no profile is written); 2 when recording fails.",
            "Everything after BINARY (or after --) goes to the program."
        })
public final class ProfileRecordCommand implements Callable<Integer> {
    @Option(names = {"-o", "--output"}, paramLabel = "OUT",
            description = "The profile to write (default: BINARY's file name + .fdata, or + .pa with --format pa,"
                    + " in the current directory).")
    Path output;

    @Option(names = "--format", defaultValue = "fdata", paramLabel = "FORMAT",
            description = "fdata (default) or pa (perf2bolt's pre-aggregated records, for perf2bolt-22 --pa).")
    String format;

    @Option(names = "--input", paramLabel = "INPUT",
            description = "For a BOLTed BINARY: the binary BOLT optimized; code BOLT left in place is then named after"
                    + " the input's functions (as 'bat translate --input').")
    Path inputBinary;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing but errors.")
    boolean quiet;

    @Parameters(index = "0", paramLabel = "BINARY", description = "The RISC-V64 executable.")
    Path binary;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments for the program.")
    List<String> args = new ArrayList<>();

    private CommandSpec commandSpec;

    @Spec
    void spec(CommandSpec spec) {
        // Options after BINARY belong to the program, not to splice.
        spec.parser().stopAtPositional(true);
        this.commandSpec = spec;
    }

    @Override
    public Integer call() {
        ProfileRecorder.Format outputFormat = format(format);
        if (outputFormat == null) {
            throw new ParameterException(commandSpec.commandLine(), "--format must be fdata or pa, not '" + format + "'");
        }
        return record(binary, args, output, outputFormat, inputBinary, quiet, commandSpec.commandLine().getErr());
    }

    /**
     * The output format a {@code --format} value names.
     *
     * @param name the value
     * @return the format, or null when the name is neither {@code fdata} nor {@code pa}
     */
    static ProfileRecorder.Format format(String name) {
        return switch (name) {
            case "fdata" -> ProfileRecorder.Format.FDATA;
            case "pa" -> ProfileRecorder.Format.PRE_AGGREGATED;
            default -> null;
        };
    }

    /**
     * The command's work, once its arguments are parsed (by picocli or by {@link ProfileRecordFastPath}).
     *
     * @param binary the program
     * @param args its arguments
     * @param output the profile to write, or null for the default name
     * @param format what to write
     * @param inputBinary for a BOLTed binary, the binary BOLT optimized, or null
     * @param quiet whether the summary line is left out
     * @param err standard error
     * @return the exit status: the program's
     */
    static int record(Path binary, List<String> args, Path output, ProfileRecorder.Format format, Path inputBinary,
                      boolean quiet, PrintWriter err) {
        Path out = output != null ? output
                : Path.of(binary.getFileName() + (format == ProfileRecorder.Format.FDATA ? ".fdata" : ".pa"));
        ProfileRecorder.Result r = Profiles.record(binary, args, QemuRunner.Streams.inherited(), out, format, inputBinary);
        if (r.trace().isEmpty() || !quiet) {
            err.println(r.summary(out));
        }
        err.flush();
        return r.exitCode();
    }
}
