package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.weigh.PluginRecords;
import dev.splice.weigh.ProgramCatalog;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice weigh catalog -o CATALOG.json -- PROGRAM [ARGS...]}. */
@Command(
        name = "catalog",
        mixinStandardHelpOptions = true,
        description = {
            "Run a RISC-V64 Linux program under qemu-riscv64 with the Splice plugin in catalog mode and write, per semantic key (mnemonic with aq/rl, CSR name or fence sets, as the context table keys them), how many instruction slots QEMU translated and how many times they executed. 'splice weigh map' reads it."
        })
public final class WeighCatalogCommand implements Callable<Integer> {
    @Option(names = {"-o", "--output"}, paramLabel = "CATALOG.json", required = true, description = "Catalog file to write.")
    Path out;

    @Parameters(arity = "1..*", paramLabel = "PROGRAM [ARGS...]", description = "The program and its arguments (after --).")
    List<String> command;

    @Override
    public Integer call() throws Exception {
        Path program = Path.of(command.get(0));
        List<String> args = command.subList(1, command.size());
        QemuRunner.Result r = new QemuRunner(QemuPlugin.locate())
                .run(program, args, PluginRecords.Mode.CATALOG, Optional.empty(), QemuRunner.Streams.inherited());
        if (r.records().isEmpty()) {
            throw new BadInputException(program + " died of signal " + r.signal() + ": QEMU wrote no catalog");
        }
        PluginRecords records = r.records().get();
        if (records.footer().vcpus() != 1) {
            throw new BadInputException(program + " ran " + records.footer().vcpus()
                    + " guest threads: the plugin's inline counters are exact only for one");
        }
        List<ProgramCatalog.Entry> classes = ProgramCatalog.classes(records.catalog());
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        root.put("schema", "splice.weigh.catalog/1");
        root.put("program", program.toString());
        ArrayNode a = root.putArray("args");
        args.forEach(a::add);
        root.put("exit_code", r.exitCode());
        root.put("executed", classes.stream().mapToLong(ProgramCatalog.Entry::executed).sum());
        root.put("translated", classes.stream().mapToLong(ProgramCatalog.Entry::translated).sum());
        root.put("translation_blocks", records.footer().translations());
        ArrayNode list = root.putArray("classes");
        for (ProgramCatalog.Entry e : classes) {
            ObjectNode n = list.addObject();
            n.put("key", e.key());
            n.put("extension", e.extension());
            n.put("translated", e.translated());
            n.put("executed", e.executed());
            n.put("encodings", e.encodings());
        }
        AtomicFiles.write(out, json.writeValueAsString(root) + "\n");
        System.err.println("splice: " + classes.size() + " classes, " + root.get("executed").asLong()
                + " instructions executed (exit status " + r.exitCode() + "); wrote " + out);
        return Main.OK;
    }
}
