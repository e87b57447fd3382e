package dev.splice.cli;

import dev.splice.base.AtomicFiles;
import dev.splice.base.OutputPaths;
import dev.splice.weigh.report.ComparePage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code splice weigh report --compare USER SYSTEM -o PAGE}. */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description = {
            "Write an HTML page of weights (one self-contained file, inline SVG, no scripts).",
            "--compare puts the user-mode and system-mode weights of the same contexts side by side: both estimates with their bands, the ratio system/user, and the QEMU mechanism behind the difference (softmmu TLB, helper calls, exits to the main loop). Which file is which is weights.json's \"mode\" (weigh model copies it from the campaign), in either order; a file without it (written before the field existed) takes the other mode, and when neither has one the first is the user-mode side."
        })
public final class WeighReportCommand implements Callable<Integer> {
    @Option(names = "--compare", arity = "2", required = true, paramLabel = "WEIGHTS",
            description = "The user-mode and the system-mode weights.json.")
    List<Path> compare;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "PAGE", description = "The HTML file to write (- for standard output).")
    Path out;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        if (compare.size() != 2) {
            throw new ParameterException(spec.commandLine(), "--compare takes two files, once");
        }
        OutputPaths.check(out, compare.toArray(Path[]::new));
        List<ComparePage.Side> sides = ComparePage.sides(compare.get(0), compare.get(1));
        String page = ComparePage.render(sides.get(0), sides.get(1));
        if (OutputPaths.isStandardOutput(out)) {
            System.out.print(page);
        } else {
            AtomicFiles.write(out, page);
            System.out.println("wrote " + out);
        }
        return Main.OK;
    }
}
