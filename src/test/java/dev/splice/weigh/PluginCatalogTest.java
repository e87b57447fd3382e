package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.weigh.campaign.PluginRecords.CatalogEntry;
import dev.splice.weigh.campaign.PluginRecords;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Catalog mode: per-encoding execution counts over a whole run, checked against QEMU's single-step
 * exec log (executed PCs) mapped to encodings by GNU objdump.
 */
class PluginCatalogTest {
    private static Map<List<Long>, Long> oracle(Path program, String... args) {
        Map<Long, long[]> instructions = PluginFixtures.objdumpInstructions(program);
        Map<List<Long>, Long> counts = new HashMap<>();
        for (long pc : PluginFixtures.singleStepPcs(program, args)) {
            long[] insn = instructions.get(pc);
            assertTrue(insn != null, "objdump shows no instruction at executed pc 0x" + Long.toHexString(pc));
            counts.merge(List.of(insn[0], insn[1]), 1L, Long::sum);
        }
        return counts;
    }

    private static Map<List<Long>, Long> catalog(PluginRecords records) {
        Map<List<Long>, Long> counts = new HashMap<>();
        for (CatalogEntry e : records.catalog()) {
            assertTrue(e.translated() >= 1);
            if (e.executed() > 0) {
                counts.put(List.of(e.encoding(), (long) e.size()), e.executed());
            }
        }
        return counts;
    }

    @Test
    void perEncodingCountsMatchTheExecLog() {
        for (String variant : new String[] {"count_loop", "count_loop.norvc"}) {
            Path program = TestPrograms.rv64(variant);
            PluginRecords records = PluginFixtures.run(PluginRecords.Mode.CATALOG, program, "123").records().orElseThrow();
            assertEquals(PluginRecords.Mode.CATALOG, records.mode());
            PluginFixtures.assertClean(records);
            assertEquals(oracle(program, "123"), catalog(records), variant);
        }
    }

    @Test
    void markersAreOrdinaryInstructionsAndTheTotalIsTheCount() {
        Path program = TestPrograms.rv64("plugin_markers");
        PluginRecords records = PluginFixtures.run(PluginRecords.Mode.CATALOG, program).records().orElseThrow();
        assertEquals(oracle(program), catalog(records));
        long total = records.catalog().stream().mapToLong(CatalogEntry::executed).sum();
        long count = PluginFixtures.run(PluginRecords.Mode.COUNT, program).records().orElseThrow()
                .executedInstructions().orElseThrow();
        assertEquals(count, total);
        assertEquals(0, records.footer().nestedStarts(), "no marker bookkeeping in catalog mode");
    }
}
