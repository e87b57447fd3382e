package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.splice.base.OutputPaths;
import dev.splice.bat.BatDump;
import dev.splice.elf.ElfFile;
import dev.splice.profile.ProfileTranslation;
import dev.splice.profile.TranslatedProfile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** `splice bat`: BOLT address translation tables and profile translation. */
@Command(name = "bat", mixinStandardHelpOptions = true,
        description = "Read BOLT address translation tables (.note.bolt_bat) and translate profiles collected on a"
                + " BOLTed binary back to the input binary, as perf2bolt does.",
        subcommands = {BatCommand.Dump.class, BatCommand.Translate.class})
public final class BatCommand implements Runnable {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: dump or translate.");
    }

    @Command(name = "dump", mixinStandardHelpOptions = true,
            description = "Print the translation tables of a BOLTed binary: per function (named from the symbol table)"
                    + " its output address, hash, block count, entries (output offset -> input offset, branch marks,"
                    + " block index and hash), secondary entry points and cold fragments.")
    static final class Dump implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "BINARY", description = "A binary written by llvm-bolt --enable-bat.")
        Path binary;

        @Option(names = "--json", description = "Print the complete dump as JSON.")
        boolean json;

        @Spec picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            BatDump.Dump dump = BatDump.of(ElfFile.read(binary));
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(dump));
            } else {
                BatDump.print(dump, out);
            }
            out.flush();
            return Main.OK;
        }
    }

    @Command(name = "translate", mixinStandardHelpOptions = true,
            description = "Translate a profile collected on a BOLTed binary to the input binary's coordinates and write"
                    + " it as fdata (as perf2bolt writes it) or as BOLT's YAML profile. On a binary BOLT has not"
                    + " rewritten (no tables), write its fdata profile as perf2bolt does.")
    static final class Translate implements Callable<Integer> {
        @Option(names = "--pa", paramLabel = "PROFILE", arity = "0..1", fallbackValue = "",
                description = "A pre-aggregated profile (B, F, f, S, T, E records) as perf2bolt --pa reads. As perf2bolt"
                        + " spells it, '--pa' alone says that the -p file is one.")
        String preAggregated;

        @Option(names = "--perf-script", paramLabel = "FILE", description = "Text of 'perf script -F ip,brstack'.")
        Path perfScript;

        @Option(names = "-p", paramLabel = "FILE",
                description = "perf2bolt's spelling: the profile, pre-aggregated with --pa (Splice reads perf.data only as"
                        + " the text of 'perf script -F ip,brstack', given with --perf-script).")
        Path profileFile;

        @Option(names = "-w", paramLabel = "YAML", description = "Also (or instead of -o) write BOLT's YAML profile here, as perf2bolt -w.")
        Path yamlOutput;

        @Option(names = "--allow-empty", description = "An empty profile is not an error (it is still reported).")
        boolean allowEmpty;

        @Parameters(index = "0", arity = "0..1", paramLabel = "BINARY", description = "The binary the profile was collected on: BOLTed (with tables), or one BOLT has not rewritten.")
        Path binary;

        @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "The output profile (required unless -w is given).")
        Path output;

        @Option(names = "--format", defaultValue = "fdata", paramLabel = "FORMAT",
                description = "Output format: fdata (default) or yaml.")
        String format;

        @Option(names = {"--basic-samples", "--ba"},
                description = "Use only samples without branch stacks (S records) and write a no_lbr profile.")
        boolean basicSamples;

        @Option(names = "--skip-bad-lines", description = "Skip malformed lines, count them and report them, instead of failing.")
        boolean skipBadLines;

        @Option(names = "--input", paramLabel = "INPUT",
                description = "The binary BOLT optimized. With it, code BOLT left in place that perf2bolt names by an internal"
                        + " name (__BOLT_FDE_FUNCat..., .bolt.org.text/1) is named after the input's function at the same"
                        + " address, so that llvm-bolt finds it; locations are unchanged.")
        Path inputBinary;

        @Spec picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            Path profile = profile();
            boolean pa = perfScript == null;
            if (output == null && yamlOutput == null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give -o OUT (or -w YAML)");
            }
            OutputPaths.check(output, binary, inputBinary, profile);
            OutputPaths.check(yamlOutput, binary, inputBinary, profile);
            ProfileTranslation.OutputFormat outputFormat = switch (format) {
                case "fdata" -> ProfileTranslation.OutputFormat.FDATA;
                case "yaml" -> ProfileTranslation.OutputFormat.YAML;
                default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--format must be fdata or yaml, not '" + format + "'");
            };
            PrintWriter err = spec.commandLine().getErr();
            long start = System.nanoTime();
            TranslatedProfile r = ProfileTranslation.translate(binary, profile,
                    pa ? ProfileTranslation.InputFormat.PRE_AGGREGATED : ProfileTranslation.InputFormat.PERF_SCRIPT,
                    new ProfileTranslation.Options(basicSamples, skipBadLines, inputBinary, lines -> {
                        err.printf("splice: read %,d lines (%.1f s)%n", lines, (System.nanoTime() - start) / 1e9);
                        err.flush();
                    }));
            if (output != null) {
                r.write(output, outputFormat);
            }
            if (yamlOutput != null) {
                r.write(yamlOutput, ProfileTranslation.OutputFormat.YAML);
            }
            if (r.badLines() > 0) {
                err.printf("splice: skipped %,d malformed lines; the first: %s%n", r.badLines(), r.firstBadLine());
            }
            if (r.lines() >= (1 << 20)) {
                err.printf("splice: %,d lines, %,d distinct records -> %,d branch and %,d sample lines in %s%n",
                        r.lines(), r.distinctRecords(), r.fdata().branches().size(), r.fdata().samples().size(), output);
            }
            boolean empty = r.fdata().branches().isEmpty() && r.fdata().samples().isEmpty();
            if (empty) {
                err.println("splice: warning: " + profile + " gave an empty profile (" + r.lines() + " lines read)"
                        + (allowEmpty ? "" : "; --allow-empty accepts that"));
            }
            err.flush();
            return empty && !allowEmpty ? Main.BAD_INPUT : Main.OK;
        }

        /** The profile file, from --pa FILE, --perf-script FILE, or perf2bolt's -p FILE with --pa. */
        private Path profile() {
            if (profileFile != null && preAggregated != null && !preAggregated.isEmpty() && binary == null) {
                // perf2bolt's order, '-p FILE --pa BINARY': with -p, --pa is a flag and what follows it is the binary.
                binary = Path.of(preAggregated);
                preAggregated = "";
            }
            if (binary == null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'BINARY'");
            }
            boolean paFlag = preAggregated != null && preAggregated.isEmpty();
            Path paFile = preAggregated == null || preAggregated.isEmpty() ? null : Path.of(preAggregated);
            int given = (paFile != null ? 1 : 0) + (perfScript != null ? 1 : 0) + (profileFile != null ? 1 : 0);
            if (given != 1) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "give exactly one profile: --pa FILE, -p FILE --pa, or --perf-script FILE");
            }
            if (profileFile != null && !paFlag) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "-p " + profileFile
                        + ": Splice reads no perf.data; give a pre-aggregated profile with --pa, or the text of"
                        + " 'perf script -F ip,brstack' with --perf-script");
            }
            if (paFlag && profileFile == null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--pa without a file needs -p FILE");
            }
            return profileFile != null ? profileFile : paFile != null ? paFile : perfScript;
        }
    }
}
