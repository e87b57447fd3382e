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
import picocli.CommandLine.ArgGroup;
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
        static final class Input {
            @Option(names = "--pa", paramLabel = "PROFILE", required = true,
                    description = "A pre-aggregated profile (B, F, f, S, T, E records) as perf2bolt --pa reads.")
            Path preAggregated;

            @Option(names = "--perf-script", paramLabel = "FILE", required = true,
                    description = "Text of 'perf script -F ip,brstack'.")
            Path perfScript;
        }

        @ArgGroup(exclusive = true, multiplicity = "1")
        Input input;

        @Parameters(index = "0", paramLabel = "BINARY", description = "The binary the profile was collected on: BOLTed (with tables), or one BOLT has not rewritten.")
        Path binary;

        @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT", description = "The output profile.")
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
            OutputPaths.check(output, binary, inputBinary, input.preAggregated, input.perfScript);
            ProfileTranslation.OutputFormat outputFormat = switch (format) {
                case "fdata" -> ProfileTranslation.OutputFormat.FDATA;
                case "yaml" -> ProfileTranslation.OutputFormat.YAML;
                default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--format must be fdata or yaml, not '" + format + "'");
            };
            boolean pa = input.preAggregated != null;
            Path profile = pa ? input.preAggregated : input.perfScript;
            PrintWriter err = spec.commandLine().getErr();
            long start = System.nanoTime();
            TranslatedProfile r = ProfileTranslation.translate(binary, profile,
                    pa ? ProfileTranslation.InputFormat.PRE_AGGREGATED : ProfileTranslation.InputFormat.PERF_SCRIPT,
                    new ProfileTranslation.Options(basicSamples, skipBadLines, inputBinary, lines -> {
                        err.printf("splice: read %,d lines (%.1f s)%n", lines, (System.nanoTime() - start) / 1e9);
                        err.flush();
                    }));
            r.write(output, outputFormat);
            if (r.badLines() > 0) {
                err.printf("splice: skipped %,d malformed lines; the first: %s%n", r.badLines(), r.firstBadLine());
            }
            if (r.lines() >= (1 << 20)) {
                err.printf("splice: %,d lines, %,d distinct records -> %,d branch and %,d sample lines in %s%n",
                        r.lines(), r.distinctRecords(), r.fdata().branches().size(), r.fdata().samples().size(), output);
            }
            err.flush();
            return Main.OK;
        }
    }
}
