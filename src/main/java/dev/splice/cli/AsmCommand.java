package dev.splice.cli;

import dev.splice.base.AtomicFiles;
import dev.splice.base.OutputPaths;
import dev.splice.base.BadInputException;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.listing.Region;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** `splice asm`: the raw bytes of a listing's region. */
@Command(
        name = "asm",
        mixinStandardHelpOptions = true,
        description = {
            "Assembles a listing (as 'splice disasm' writes it, edited or not) into the raw bytes of its region: for an unedited whole-section listing exactly the section's bytes.",
            "Errors are reported as FILE:LINE:COLUMN: message."
        })
final class AsmCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "LISTING", description = "The listing file.")
    Path listing;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default: standard output).")
    Path output;

    @Option(names = "--region", paramLabel = "NAME",
            description = "The region to write when the listing has several (a section or function name).")
    String region;

    @Override
    public Integer call() throws Exception {
        OutputPaths.check(output, listing);
        Assembly assembly = Assembler.assemble(listing);
        byte[] bytes = pick(assembly).bytes();
        AtomicFiles.writeOrPrint(output, out -> out.write(bytes));
        return Main.OK;
    }

    private Region pick(Assembly assembly) {
        List<Region> regions = assembly.regions();
        if (region != null) {
            return regions.stream().filter(r -> r.name().equals(region)).findFirst()
                    .orElseThrow(() -> new BadInputException(listing + ": no region named '" + region + "' (regions: "
                            + names(regions) + ")"));
        }
        if (regions.size() != 1) {
            throw new BadInputException(listing + ": the listing has " + regions.size() + " regions ("
                    + names(regions) + "); choose one with --region NAME");
        }
        return regions.get(0);
    }

    private static String names(List<Region> regions) {
        return regions.isEmpty() ? "none" : regions.stream().map(Region::name).collect(Collectors.joining(", "));
    }
}
