package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.UnavailableExtension;
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
            "Lists the instruction contexts 'splice weigh measure' can measure (all, or those whose keys match the comma-separated globs of PATTERN, as --contexts takes them): key, mnemonic, extension, form, pattern, baseline, whether QEMU runs it and the CPU model it needs. With --unavailable: the extensions QEMU 7.2 cannot run, with the reason."
        })
final class WeighContextsCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", description = "Comma-separated globs over context keys, e.g. 'div*,addi.*'.")
    String pattern;

    @Option(names = "--json", description = "One JSON array of objects instead of a table.")
    boolean json;

    @Option(names = "--unavailable", description = "List the extensions without contexts because QEMU 7.2 cannot run them (extension, the instruction tried, the CPU model, the reason) instead of the contexts.")
    boolean unavailable;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (unavailable) {
            return printUnavailable(spec.commandLine().getOut());
        }
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

    private Integer printUnavailable(PrintWriter out) throws Exception {
        List<UnavailableExtension> list = UnavailableExtension.load();
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            ArrayNode array = mapper.createArrayNode();
            for (UnavailableExtension u : list) {
                ObjectNode o = array.addObject();
                o.put("extension", u.extension());
                o.put("instruction", u.instruction());
                o.put("cpu", u.cpu());
                o.put("missing_property", u.property().orElse(null));
                o.put("reason", u.reason());
            }
            out.println(mapper.writeValueAsString(array));
        } else {
            out.printf("%-10s %-26s %-38s %s%n", "extension", "instruction", "cpu", "reason");
            for (UnavailableExtension u : list) {
                out.printf("%-10s %-26s %-38s %s%n", u.extension(), u.instruction(), u.cpu(), u.reason());
            }
            out.println(list.size() + " extensions QEMU 7.2 cannot run");
        }
        out.flush();
        return Main.OK;
    }
}
