package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.cli.Main;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.campaign.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgramCatalogTest {
    @TempDir Path tmp;

    @Test
    void aRealProgramsCatalogCountsWhatQemuExecutedAndNamesWhatObjdumpNames() throws IOException {
        Path program = TestPrograms.rv64("loops");
        Path out = tmp.resolve("catalog.json");
        // The program's own exit status comes through (QEMU's is the oracle).
        int status = dev.splice.testing.Tools.run("qemu-riscv64", program.toString()).exitCode();
        assertEquals(status, Main.execute("weigh", "catalog", "-o", out.toString(), "--", program.toString()));
        JsonNode root = new ObjectMapper().readTree(out.toFile());
        // dynamic counts: the total is QEMU's own single-step execution log
        assertEquals(PluginFixtures.singleStepCount(program), root.path("executed").asLong());
        // keys: every base mnemonic is one llvm-objdump prints (no aliases) for this program
        Tools.Result dis = Tools.run("llvm-objdump-22", "-d", "-M", "no-aliases", "--no-show-raw-insn", program.toString())
                .checked("llvm-objdump");
        Set<String> mnemonics = new HashSet<>();
        for (String line : dis.stdout().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2 && f[0].matches("[0-9a-f]+:")) {
                mnemonics.add(f[1]);
            }
        }
        long executedClasses = 0;
        for (JsonNode c : root.path("classes")) {
            String key = c.path("key").asText();
            assertTrue(c.path("translated").asLong() >= 1, key);
            if (c.path("executed").asLong() > 0) {
                executedClasses++;
            }
            String base = key.startsWith("csrr") || key.startsWith("fence.") ? key.substring(0, key.lastIndexOf('.')) : key;
            assertTrue(mnemonics.contains(base) || (key.startsWith("fence.") && mnemonics.contains("fence")),
                    key + " is not among objdump's mnemonics");
        }
        assertTrue(executedClasses > 20, "loops executes many classes");
        // 'splice weigh map' accepts it
        Catalog catalog = Catalog.read(out);
        assertEquals(root.path("classes").size(), catalog.entries().size());
    }

    @Test
    void blockCountsAddUpToQemusOwnExecLogAndToTheJumpsAndBranches() throws IOException {
        Path program = TestPrograms.rv64("loops");
        Path out = tmp.resolve("catalog.json");
        Main.execute("weigh", "catalog", "-o", out.toString(), "--", program.toString());
        Catalog catalog = Catalog.read(out);
        assertEquals(12, catalog.blocks().size(), catalog.blocks().toString());
        // QEMU without a plugin, chaining off so that it logs every block it enters
        Path log = tmp.resolve("exec.log");
        Tools.run(List.of("qemu-riscv64", "-d", "exec,nochain", "-D", log.toString(), program.toString()), null, 300);
        long entered;
        try (Stream<String> lines = Files.lines(log)) {
            entered = lines.filter(l -> l.startsWith("Trace ")).count();
        }
        assertEquals(entered, catalog.blocks().stream().mapToLong(Catalog.Block::executed).sum());
        assertEquals(catalog.origin().translationBlocks(),
                catalog.blocks().stream().mapToLong(Catalog.Block::translated).sum());
        // every jump and branch ends a block: the per-encoding counts of those classes (decoded in Java)
        // equal the blocks the plugin classified (in C) as ending in one
        Set<String> jumps = Set.of("jal", "jalr", "beq", "bne", "blt", "bge", "bltu", "bgeu", "c.j", "c.jr", "c.jalr",
                "c.beqz", "c.bnez");
        long jumpExecutions = catalog.entries().stream().filter(e -> jumps.contains(e.key()))
                .mapToLong(Catalog.Entry::executed).sum();
        long jumpBlocks = catalog.blocks().stream().filter(b -> !b.kind().startsWith("fallthrough")
                && !b.kind().equals("exit")).mapToLong(Catalog.Block::executed).sum();
        assertEquals(jumpExecutions, jumpBlocks);
        assertTrue(catalog.blocks().stream().anyMatch(b -> b.kind().equals("return") && b.executed() > 1000),
                catalog.blocks().toString());
    }
}
