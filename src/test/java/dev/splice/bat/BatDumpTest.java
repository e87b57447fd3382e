package dev.splice.bat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dump's table prints a block index and hash exactly for the entries that start an input block
 * (the blocks of the function's block table, from BOLT's own outputs), one line per entry in columns.
 */
class BatDumpTest {
    @Test
    void tableShowsBlocksOnlyWhereTheTableHasThem() throws IOException {
        for (BoltOutputs.Output o : BoltOutputs.all()) {
            ElfFile elf = ElfFile.read(o.output());
            BatTables tables = BatTables.read(elf);
            BatDump.Dump dump = BatDump.of(elf);
            StringBuilder text = new StringBuilder();
            BatDump.print(dump, text);
            List<String> lines = text.toString().lines().filter(l -> l.matches("\\s+0x[0-9a-f]+\\s+0x[0-9a-f]+\\s+\\S.*")).toList();
            List<String> expected = new ArrayList<>();
            for (BatFunction f : tables.functions()) {
                expectedLines(f.map(), tables.blocks(f.address()), expected);
                for (BatColdFragment c : tables.coldFragments()) {
                    if (c.parentAddress() == f.address()) {
                        expectedLines(c.map(), tables.blocks(f.address()), expected);
                    }
                }
            }
            assertEquals(expected, lines.stream().map(l -> l.trim().replaceAll("\\s+", " ")).toList(), o.id());
        }
    }

    private static void expectedLines(BatMap map, BatTables.BlockTable blocks, List<String> out) {
        for (int i = 0; i < map.size(); i++) {
            String offsets = "0x" + Long.toHexString(map.outputOffset(i)) + " 0x" + Long.toHexString(map.inputOffset(i));
            if (map.isBranch(i)) {
                out.add(offsets + " branch");
            } else {
                BatTables.Block b = blocks.byOffset().get(map.inputOffset(i));
                out.add(offsets + " block " + b.index() + " 0x" + Long.toHexString(b.hash()));
            }
        }
    }

    @Test
    void anOffsetThatStartsNoBlockIsPrintedWithoutBlockButKeptInJson() throws IOException {
        BatWriter w = new BatWriter();
        w.function(0x1000, 7, 2).block(0, 0, 11).block(0x10, 1, 12)
                .entry(0, 0, false).entry(4, 4, true).entry(8, 0x8, false).entry(0xc, 0x10, false);
        BatTables tables = BatTables.decodeNote(w.encodeNote(), "test");
        BatDump.Dump dump = BatDump.of("test", tables, Map.of(0x1000L, "f"));
        StringBuilder text = new StringBuilder();
        BatDump.print(dump, text);
        String table = text.toString();
        assertTrue(table.contains("0x8         0x8         offset" + System.lineSeparator()), table);
        assertTrue(table.matches("(?s).*0xc\\s+0x10\\s+block\\s+1\\s+0xc.*"), table);
        BatDump.Entry offsetEntry = dump.functions().get(0).entries().get(2);
        assertEquals(new BatDump.Entry(8, 8, false, false, 0L, "0x0"), offsetEntry);
    }
}
