package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.elf.BoltedSamples;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `splice info`: its JSON and text agree with llvm-readelf-22; bad input exits 2, usage errors 1. */
class InfoCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static CliRun splice(String... args) {
        return CliRun.of(args);
    }

    static Stream<Path> files() {
        List<Path> files = new ArrayList<>(List.of(TestPrograms.rv64("loops.relocs"), TestPrograms.rv64("entries"),
                TestPrograms.x86_64("loops"), Path.of("/bin/ls")));
        files.addAll(BoltedSamples.all());
        return files.stream();
    }

    private static JsonNode readelf(Path file) throws Exception {
        Tools.Result r = Tools.run(List.of("llvm-readelf-22", "--elf-output-style=JSON", "--file-header", "--sections",
                "--segments", "--notes", "--symbols", "--dyn-syms", "--relocations", file.toString()), null, 300)
                .checked("llvm-readelf-22");
        return JSON.readTree(r.stdout()).get(0);
    }

    @ParameterizedTest
    @MethodSource("files")
    void jsonAgreesWithReadelf(Path file) throws Exception {
        CliRun run = splice("info", "--json", file.toString());
        assertEquals(Main.OK, run.status(), run.err());
        JsonNode mine = JSON.readTree(run.out());
        JsonNode r = readelf(file);
        assertEquals(r.get("ElfHeader").get("Entry").asLong(), mine.get("entry").asLong());
        assertEquals(r.get("ElfHeader").get("Machine").get("Value").asInt(), mine.get("machine").asInt());
        JsonNode sections = r.get("Sections");
        assertEquals(sections.size(), mine.get("sections").size());
        boolean bat = false;
        for (int i = 0; i < sections.size(); i++) {
            JsonNode s = sections.get(i).get("Section");
            JsonNode m = mine.get("sections").get(i);
            assertEquals(s.get("Name").get("Name").asText(), m.get("name").asText());
            assertEquals(s.get("Type").get("Value").asLong(), m.get("type").asLong());
            assertEquals(s.get("Address").asLong(), m.get("address").asLong());
            assertEquals(s.get("Offset").asLong(), m.get("offset").asLong());
            assertEquals(s.get("Size").asLong(), m.get("size").asLong());
            assertEquals(s.get("Flags").get("Value").asLong(), m.get("flags").asLong());
            bat |= s.get("Name").get("Name").asText().equals(".note.bolt_bat");
        }
        assertEquals(bat, mine.get("boltBat").asBoolean());
        JsonNode segments = r.get("ProgramHeaders");
        assertEquals(segments.size(), mine.get("segments").size());
        for (int i = 0; i < segments.size(); i++) {
            JsonNode p = segments.get(i).get("ProgramHeader");
            JsonNode m = mine.get("segments").get(i);
            assertEquals(p.get("Type").get("Value").asLong(), m.get("type").asLong());
            assertEquals(p.get("VirtualAddress").asLong(), m.get("virtualAddress").asLong());
            assertEquals(p.get("MemSize").asLong(), m.get("memorySize").asLong());
        }
        assertEquals(r.has("Symbols") ? r.get("Symbols").size() : 0, mine.get("symbols").get("symtab").asInt());
        assertEquals(r.has("DynamicSymbols") ? r.get("DynamicSymbols").size() : 0, mine.get("symbols").get("dynsym").asInt());
        long relocations = 0;
        for (JsonNode s : r.get("Relocations")) {
            relocations += s.get("Relocs").size();
        }
        assertEquals(relocations, mine.get("relocations").get("entries").asLong());
        String buildId = null;
        for (JsonNode ns : r.get("NoteSections")) {
            for (JsonNode n : ns.get("NoteSection").get("Notes")) {
                if (n.has("Build ID") && buildId == null) {
                    buildId = n.get("Build ID").asText();
                }
            }
        }
        assertEquals(buildId, mine.get("buildId").isNull() ? null : mine.get("buildId").asText());
    }

    @ParameterizedTest
    @MethodSource("files")
    void textShowsTheSameFacts(Path file) throws Exception {
        CliRun run = splice("info", file.toString());
        assertEquals(Main.OK, run.status(), run.err());
        JsonNode r = readelf(file);
        String out = run.out();
        assertTrue(out.contains("Entry point: 0x" + Long.toHexString(r.get("ElfHeader").get("Entry").asLong())), out);
        boolean bat = false;
        for (JsonNode s : r.get("Sections")) {
            String name = s.get("Section").get("Name").get("Name").asText();
            assertTrue(out.contains(" " + name + " "), name);
            bat |= name.equals(".note.bolt_bat");
        }
        assertTrue(out.contains("BOLT BAT:    " + (bat ? "yes" : "no")), out);
        assertTrue(out.contains("Sections (" + r.get("Sections").size() + "):"));
        assertTrue(out.contains("Segments (" + r.get("ProgramHeaders").size() + "):"));
    }

    @Test
    void badInputExitsTwoWithFileAndOffset(@TempDir Path tmp) throws Exception {
        Path garbage = tmp.resolve("garbage.elf");
        byte[] bytes = Files.readAllBytes(TestPrograms.rv64("entries"));
        Files.write(garbage, java.util.Arrays.copyOf(bytes, 100));
        CliRun run = splice("info", garbage.toString());
        assertEquals(Main.BAD_INPUT, run.status());
        assertTrue(run.err().contains(garbage.toString()) && run.err().contains("offset 0x"), run.err());
        assertTrue(!run.err().contains("Exception"), run.err());
        CliRun missing = splice("info", tmp.resolve("missing").toString());
        assertEquals(Main.BAD_INPUT, missing.status());
        assertTrue(missing.err().contains("missing"), missing.err());
    }

    @Test
    void usageErrorsExitOne() {
        assertEquals(Main.USAGE, splice("info").status());
        assertEquals(Main.USAGE, splice("info", "--no-such-option", "x").status());
        assertEquals(Main.OK, splice("info", "--help").status());
    }
}
