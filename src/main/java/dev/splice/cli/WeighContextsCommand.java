package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice weigh contexts [PATTERN]}: the measurement contexts, for choosing {@code --contexts}. */
@Command(
        name = "contexts",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the instruction contexts 'splice weigh measure' can measure (all, or those whose keys match the comma-separated globs of PATTERN, as --contexts takes them): key, mnemonic, extension, form, pattern, baseline, and whether QEMU runs it."
        })
final class WeighContextsCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", description = "Comma-separated globs over context keys, e.g. 'div*,addi.*'.")
    String pattern;

    @Option(names = "--json", description = "One JSON array of objects instead of a table.")
    boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ContextTable table = ContextTable.load();
        List<Context> contexts = pattern == null ? table.contexts() : table.select(pattern);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            ArrayNode array = mapper.createArrayNode();
            for (Context c : contexts) {
                ObjectNode o = array.addObject();
                o.put("key", c.key());
                o.put("mnemonic", c.mnemonic());
                o.put("extension", c.extension());
                o.put("form", c.form().label());
                o.put("pattern", c.pattern().label());
                o.put("baseline", c.baseline().orElse(null));
                o.put("runs_on_qemu", c.runsOnQemu());
                o.put("cpu", c.cpu().orElse(null));
            }
            out.println(mapper.writeValueAsString(array));
        } else {
            out.printf("%-34s %-14s %-10s %-10s %-12s %-28s %-4s %s%n", "key", "mnemonic", "extension", "form", "pattern",
                    "baseline", "qemu", "cpu");
            for (Context c : contexts) {
                out.printf("%-34s %-14s %-10s %-10s %-12s %-28s %-4s %s%n", c.key(), c.mnemonic(), c.extension(),
                        c.form().label(), c.pattern().label(), c.baseline().orElse("-"), c.runsOnQemu() ? "yes" : "no",
                        c.cpu().orElse("-"));
            }
            out.println(contexts.size() + " contexts");
        }
        out.flush();
        return Main.OK;
    }
}
