package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.splice.base.Hex;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Adding sections with the editor: the result is read without warnings by GNU readelf and llvm-readelf, and still runs. */
class ElfEditorTest {
    @TempDir Path tmp;

    static Stream<Path> files() {
        return Stream.of(TestPrograms.rv64("loops"), TestPrograms.rv64("exceptions.relocs"), TestPrograms.x86_64("loops"),
                Path.of("/bin/ls"));
    }

    private static final byte[] DESCRIPTOR = "splice-note-descriptor".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PAYLOAD = "non-allocated payload\0with bytes \u0001\u0002".getBytes(StandardCharsets.ISO_8859_1);

    @ParameterizedTest
    @MethodSource("files")
    void addedNoteAndNonAllocatedSectionAreAcceptedByReadelf(Path file) throws Exception {
        ElfFile elf = ElfFile.read(file);
        ElfEditor editor = elf.edit();
        int note = editor.addNote(".note.splice", "Splice", 0x53504c, DESCRIPTOR, 0, 0);
        int extra = editor.addSection(".splice.extra", Section.SHT_PROGBITS, 0, 0, 8, 0, 0, 0, PAYLOAD);
        Path out = tmp.resolve(file.getFileName() + ".edited");
        editor.write(out);

        // Our reader: everything old is still there, the new sections hold what we put in.
        ElfFile edited = ElfFile.read(out);
        assertEquals(elf.sections().size() + 2, edited.sections().size());
        for (Section s : elf.sections()) {
            Section t = edited.sections().get(s.index());
            assertEquals(s.name(), t.name());
            if (!s.name().equals(".shstrtab")) {
                assertEquals(s, t);
                assertArrayEquals(elf.contents(s), edited.contents(t));
            }
        }
        assertEquals(elf.segments(), edited.segments());
        assertEquals(elf.symbols(), edited.symbols());
        assertArrayEquals(PAYLOAD, edited.contents(edited.sections().get(extra)));
        Note n = edited.notes().stream().filter(x -> x.owner().equals("Splice")).findFirst().orElseThrow();
        assertEquals(0x53504c, n.type());
        assertArrayEquals(DESCRIPTOR, n.descriptor());
        assertEquals(note, n.section().index());
        assertEquals(elf.buildId().map(Hex::of), edited.buildId().map(Hex::of));

        // The oracles: no warnings, and they see the new sections and the note.
        Tools.Result gnu = Tools.run("readelf", "-a", "-W", out.toString()).checked("readelf -a");
        assertFalse(gnu.stderr().toLowerCase().contains("warning") || gnu.stderr().toLowerCase().contains("error"), gnu.stderr());
        assertTrue(gnu.stdout().contains(".note.splice") && gnu.stdout().contains(".splice.extra"));
        Tools.Result llvm = Tools.run(Readelf.TOOL, "-a", out.toString()).checked("llvm-readelf -a");
        assertTrue(llvm.stderr().isBlank(), llvm.stderr());
        JsonNode r = Readelf.json(out, "--sections", "--notes");
        JsonNode sections = r.get("Sections");
        JsonNode extraJson = sections.get(extra).get("Section");
        assertEquals(".splice.extra", extraJson.get("Name").get("Name").asText());
        assertEquals(PAYLOAD.length, extraJson.get("Size").asInt());
        byte[] bytes = Files.readAllBytes(out);
        long offset = extraJson.get("Offset").asLong();
        assertArrayEquals(PAYLOAD, java.util.Arrays.copyOfRange(bytes, (int) offset, (int) offset + PAYLOAD.length));
        boolean sawNote = false;
        for (JsonNode ns : r.get("NoteSections")) {
            if (ns.get("NoteSection").get("Name").asText().equals(".note.splice")) {
                JsonNode only = ns.get("NoteSection").get("Notes").get(0);
                assertEquals("Splice", only.get("Owner").asText());
                assertEquals(DESCRIPTOR.length, only.get("Data size").asInt());
                sawNote = true;
            }
        }
        assertTrue(sawNote, "llvm-readelf shows the new note");
    }

    @Test
    void editedRiscVProgramStillRunsTheSame() throws Exception {
        Path file = TestPrograms.rv64("loops");
        ElfEditor editor = ElfFile.read(file).edit();
        editor.addNote(".note.splice", "Splice", 1, DESCRIPTOR, 0, 0);
        editor.addSection(".splice.extra", Section.SHT_PROGBITS, 0, 0, 1, 0, 0, 0, PAYLOAD);
        Path out = tmp.resolve("loops.edited");
        editor.write(out);
        out.toFile().setExecutable(true);
        Tools.Result before = Tools.run("qemu-riscv64", file.toString());
        Tools.Result after = Tools.run("qemu-riscv64", out.toString());
        assertEquals(before.exitCode(), after.exitCode());
        assertEquals(before.stdout(), after.stdout());
        assertFalse(before.stdout().isEmpty());
    }

    @Test
    void renamedAndResizedSectionsMoveAndStayReadable() throws Exception {
        Path file = TestPrograms.rv64("loops");
        ElfFile elf = ElfFile.read(file);
        ElfEditor editor = elf.edit();
        Section comment = editor.section(".comment").orElseThrow();
        byte[] longer = "Splice was here, with a comment longer than the original one\0".getBytes(StandardCharsets.US_ASCII);
        editor.setContents(comment.index(), longer);
        Section renamed = editor.section(comment.index());
        editor.setSection(new Section(renamed.index(), ".comment.splice", renamed.type(), renamed.flags(),
                renamed.address(), renamed.offset(), renamed.size(), renamed.link(), renamed.info(),
                renamed.alignment(), renamed.entrySize()));
        Path out = tmp.resolve("loops.renamed");
        editor.write(out);
        ElfFile edited = ElfFile.read(out);
        Section moved = edited.section(".comment.splice").orElseThrow();
        assertArrayEquals(longer, edited.contents(moved));
        assertTrue(edited.section(".comment").isEmpty());
        assertEquals(editor.layout().sections().get(comment.index()).offset(), moved.offset());
        Tools.Result gnu = Tools.run("readelf", "-a", "-W", out.toString()).checked("readelf -a");
        assertTrue(gnu.stderr().isBlank(), gnu.stderr());
    }
}
