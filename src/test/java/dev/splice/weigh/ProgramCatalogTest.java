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
import java.nio.file.Path;
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
}
