package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.elf.ElfFile;
import dev.splice.patch.Point;
import dev.splice.patch.PointSelector;
import dev.splice.patch.PointSpec;
import dev.splice.testing.TestPrograms;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code splice points}: the library's selection (checked against objdump in PointSelectorTest), printed. */
class PointsCommandTest {
    private static final Path LOOPS = TestPrograms.rv64("loops.relocs");

    @Test
    void listsEachPointWithItsPlaceKindAndRefusal() {
        long hot = ElfFile.read(LOOPS).function("hot_loop").orElseThrow().address();
        String middle = "0x" + Long.toHexString(hot + 1);
        CliRun run = CliRun.of("points", LOOPS.toString(), "loop:hot_loop", "block:hot_loop", middle);
        assertEquals(0, run.status(), run.err());
        List<Point> expected = PointSelector.of(ElfFile.read(LOOPS)).select(List.of(PointSpec.parse("loop:hot_loop"),
                PointSpec.parse("block:hot_loop"), PointSpec.parse(middle)));
        List<String> lines = run.out().lines().toList();
        assertEquals(expected.size(), lines.size(), run.out());
        for (int i = 0; i < lines.size(); i++) {
            Point p = expected.get(i);
            List<String> fields = List.of(lines.get(i).trim().split("\\s+"));
            assertEquals(List.of("0x" + Long.toHexString(p.address()), p.location(), p.kind().word(), p.spec()), fields.subList(0, 4));
        }
        assertTrue(lines.get(0).contains("hot_loop+0x") && lines.get(0).contains(" loop "), lines.get(0));
        assertTrue(lines.get(lines.size() - 1).endsWith("refused NOT_AN_INSTRUCTION_BOUNDARY: " + middle
                + " is not an instruction boundary of function 'hot_loop'"), lines.get(lines.size() - 1));
    }

    @Test
    void jsonHasTheSamePoints() throws Exception {
        CliRun run = CliRun.of("points", LOOPS.toString(), "exit:*", "--json");
        assertEquals(0, run.status(), run.err());
        JsonNode json = new ObjectMapper().readTree(run.out());
        List<Point> expected = PointSelector.of(ElfFile.read(LOOPS)).select(PointSpec.parse("exit:*"));
        assertEquals(expected.size(), json.get("count").asInt());
        assertEquals(expected.stream().filter(p -> !p.accepted()).count(), json.get("refused").asLong());
        // Functions under 8 bytes are no longer refused by selection (insertion decides); lr/sc sequences are.
        CliRun blocks = CliRun.of("points", LOOPS.toString(), "block:*", "--json");
        assertTrue(new ObjectMapper().readTree(blocks.out()).get("refused").asLong() > 0, "points inside lr/sc sequences are refused");
        for (int i = 0; i < expected.size(); i++) {
            Point p = expected.get(i);
            JsonNode o = json.get("points").get(i);
            assertEquals("0x" + Long.toHexString(p.address()), o.get("address").asText());
            assertEquals(p.function(), o.get("function").asText());
            assertEquals(p.offset(), o.get("offset").asLong());
            assertEquals("exit", o.get("kind").asText());
            assertEquals(p.accepted() ? null : p.refusal().reason().name(), o.has("reason") ? o.get("reason").asText() : null);
        }
    }

    @Test
    void badSpecsAndUnknownNamesExitWith2() {
        CliRun bad = CliRun.of("points", LOOPS.toString(), "main", "insn:main");
        assertEquals(2, bad.status());
        assertEquals("splice: SPEC number 2: point spec 'insn:main', column 10: insn needs a mnemonic pattern: insn:GLOB:REGEX\n",
                bad.err());
        CliRun unknown = CliRun.of("points", LOOPS.toString(), "nosuch+4");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("has no symbol named 'nosuch'"), unknown.err());
        assertEquals(1, CliRun.of("points", LOOPS.toString()).status(), "a SPEC is required");
        CliRun help = CliRun.of("points", "--help");
        assertEquals(0, help.status());
        assertTrue(help.out().contains("insn:GLOB:REGEX"), help.out());
    }
}
