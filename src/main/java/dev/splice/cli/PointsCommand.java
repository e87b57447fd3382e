package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.patch.Point;
import dev.splice.patch.PointSelector;
import dev.splice.patch.PointSpec;
import dev.splice.patch.PointSpecException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code splice points IN SPEC... [--json]}: what point specs select, and what Splice would refuse (docs/patch.md). */
@Command(
        name = "points",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the insertion points that SPECs select in a RISC-V64 executable: address, function+offset, kind, "
                    + "and for each point Splice would refuse, the reason. Nothing is written.",
            "",
            "SPEC: ADDR (0x hex or decimal), SYMBOL+OFFSET, entry:GLOB, exit:GLOB, block:GLOB, call:GLOB, loop:GLOB, "
                    + "insn:GLOB:REGEX (GLOB: a shell glob over function names; REGEX: the whole mnemonic, e.g. 'c\\.sd|sd')."
        })
final class PointsCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "IN", description = "The executable.")
    Path input;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "SPEC", description = "What to select; several are listed in order.")
    List<String> specs = new ArrayList<>();

    @Option(names = "--json", description = "Print one JSON object: the input, a count and the points.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        List<PointSpec> parsed = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            try {
                parsed.add(PointSpec.parse(specs.get(i)));
            } catch (PointSpecException e) {
                throw new BadInputException("SPEC number " + (i + 1) + ": " + e.getMessage());
            }
        }
        List<Point> points = PointSelector.of(ElfFile.read(input)).select(parsed);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ObjectNode root = mapper.createObjectNode();
            root.put("input", input.toString());
            root.put("count", points.size());
            root.put("refused", points.stream().filter(p -> !p.accepted()).count());
            root.set("points", PointsJson.points(mapper, points));
            out.println(mapper.writeValueAsString(root));
        } else {
            for (Point p : points) {
                out.printf("%-12s %-40s %-6s %s%s%n", PointsJson.hex(p.address()), p.location(), p.kind().word(), p.spec(),
                        p.accepted() ? "" : "  refused " + p.refusal().reason() + ": " + p.refusal().message());
            }
        }
        out.flush();
        return Main.OK;
    }
}
