package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.splice.base.Hex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Everything the reader parses, compared with llvm-readelf-22 on test programs and system files. */
class ElfReaderOracleTest {
    static Stream<Path> files() {
        return ElfSamples.all().stream();
    }

    @ParameterizedTest
    @MethodSource("files")
    void headersSectionsSegmentsAndNotesMatchReadelf(Path file) {
        ElfFile elf = ElfFile.read(file);
        JsonNode r = Readelf.json(file, "--file-header", "--sections", "--segments", "--notes");
        JsonNode h = r.get("ElfHeader");
        String type = h.get("Type").asText();
        assertEquals(Long.parseLong(type.substring(type.indexOf("(0x") + 3, type.length() - 1), 16), elf.header().type());
        assertEquals(Readelf.value(h.get("Machine")), elf.header().machine());
        assertEquals(h.get("Entry").asLong(), elf.header().entry());
        assertEquals(h.get("ProgramHeaderOffset").asLong(), elf.header().phoff());
        assertEquals(h.get("SectionHeaderOffset").asLong(), elf.header().shoff());
        assertEquals(Readelf.value(h.get("Flags")), elf.header().flags() & 0xffffffffL);
        assertEquals(h.get("ProgramHeaderCount").asInt(), elf.segments().size());

        JsonNode sections = r.get("Sections");
        assertEquals(sections.size(), elf.sections().size(), "section count");
        for (int i = 0; i < sections.size(); i++) {
            JsonNode s = sections.get(i).get("Section");
            Section mine = elf.sections().get(i);
            String what = file + " section " + i;
            assertEquals(s.get("Index").asInt(), mine.index(), what);
            assertEquals(s.get("Name").get("Name").asText(), mine.name(), what);
            assertEquals(Readelf.value(s.get("Type")), mine.type() & 0xffffffffL, what);
            assertEquals(Readelf.value(s.get("Flags")), mine.flags(), what);
            assertEquals(s.get("Address").asLong(), mine.address(), what);
            assertEquals(s.get("Offset").asLong(), mine.offset(), what);
            assertEquals(s.get("Size").asLong(), mine.size(), what);
            assertEquals(s.get("Link").asLong(), mine.link(), what);
            assertEquals(s.get("Info").asLong(), mine.info() & 0xffffffffL, what);
            assertEquals(s.get("AddressAlignment").asLong(), mine.alignment(), what);
            assertEquals(s.get("EntrySize").asLong(), mine.entrySize(), what);
        }

        JsonNode phdrs = r.get("ProgramHeaders");
        assertEquals(phdrs.size(), elf.segments().size());
        for (int i = 0; i < phdrs.size(); i++) {
            JsonNode p = phdrs.get(i).get("ProgramHeader");
            Segment mine = elf.segments().get(i);
            String what = file + " segment " + i;
            assertEquals(Readelf.value(p.get("Type")), mine.type() & 0xffffffffL, what);
            assertEquals(p.get("Offset").asLong(), mine.offset(), what);
            assertEquals(p.get("VirtualAddress").asLong(), mine.virtualAddress(), what);
            assertEquals(p.get("PhysicalAddress").asLong(), mine.physicalAddress(), what);
            assertEquals(p.get("FileSize").asLong(), mine.fileSize(), what);
            assertEquals(p.get("MemSize").asLong(), mine.memorySize(), what);
            assertEquals(Readelf.value(p.get("Flags")), mine.flags() & 0xffffffffL, what);
            assertEquals(p.get("Alignment").asLong(), mine.alignment(), what);
        }

        List<JsonNode> notes = new ArrayList<>();
        List<String> noteSections = new ArrayList<>();
        String buildId = null;
        for (JsonNode ns : r.get("NoteSections")) {
            for (JsonNode n : ns.get("NoteSection").get("Notes")) {
                notes.add(n);
                noteSections.add(ns.get("NoteSection").get("Name").asText());
                if (n.has("Build ID") && buildId == null) {
                    buildId = n.get("Build ID").asText();
                }
            }
        }
        assertEquals(notes.size(), elf.notes().size(), file + " note count");
        for (int i = 0; i < notes.size(); i++) {
            Note mine = elf.notes().get(i);
            assertEquals(notes.get(i).get("Owner").asText(), mine.owner(), file + " note " + i);
            assertEquals(notes.get(i).get("Data size").asInt(), mine.descriptor().length, file + " note " + i);
            assertEquals(noteSections.get(i), mine.section().name(), file + " note " + i);
        }
        assertEquals(buildId, elf.buildId().map(Hex::of).orElse(null), file + " build-id");
    }

    @ParameterizedTest
    @MethodSource("files")
    void symbolsAndFunctionsMatchReadelf(Path file) {
        ElfFile elf = ElfFile.read(file);
        JsonNode r = Readelf.json(file, "--symbols", "--dyn-syms");
        compareSymbols(file + " .symtab", r.get("Symbols"), elf.symbols());
        compareSymbols(file + " .dynsym", r.get("DynamicSymbols"), elf.dynamicSymbols());

        // Functions: the distinct (address, size) pairs of FUNC symbols defined in a section.
        JsonNode table = elf.symbols().isEmpty() ? r.get("DynamicSymbols") : r.get("Symbols");
        Set<List<Long>> expected = new HashSet<>();
        if (table != null) {
            for (JsonNode e : table) {
                JsonNode s = e.get("Symbol");
                long shndx = Readelf.value(s.get("Section"));
                if (Readelf.value(s.get("Type")) == Symbol.STT_FUNC && shndx != 0 && shndx < 0xff00) {
                    expected.add(List.of(s.get("Value").asLong(), s.get("Size").asLong()));
                }
            }
        }
        Set<List<Long>> actual = new HashSet<>();
        for (Function f : elf.functions()) {
            assertTrue(actual.add(List.of(f.address(), f.size())), file + ": duplicate function " + f);
            assertTrue(f.section().index() > 0, file + ": " + f + " has no section");
        }
        assertEquals(expected, actual, file + " functions");
        for (int i = 1; i < elf.functions().size(); i++) {
            assertTrue(Long.compareUnsigned(elf.functions().get(i - 1).address(), elf.functions().get(i).address()) <= 0);
        }
        for (Function f : elf.functions()) {
            if (f.size() > 0) {
                long last = f.address() + f.size() - 1;
                Function found = elf.functionContaining(last).orElseThrow(() -> new AssertionError(f.name()));
                assertTrue(found.contains(last), file + ": functionContaining(end of " + f.name() + ") = " + found);
            }
        }
    }

    private static void compareSymbols(String what, JsonNode expected, List<Symbol> actual) {
        if (expected == null) {
            assertTrue(actual.isEmpty(), what + ": readelf shows no table");
            return;
        }
        assertEquals(expected.size(), actual.size(), what + " count");
        for (int i = 0; i < expected.size(); i++) {
            JsonNode s = expected.get(i).get("Symbol");
            Symbol mine = actual.get(i);
            String where = what + " symbol " + i;
            assertEquals(i, mine.index(), where);
            String name = s.get("Name").get("Name").asText();
            if (mine.type() == Symbol.STT_SECTION && mine.name().isEmpty()) {
                // readelf shows the section's name for unnamed section symbols.
            } else if (!name.equals(mine.name())) {
                // .dynsym names carry their symbol version after '@' in readelf's output.
                assertTrue(name.startsWith(mine.name() + "@"), where + ": " + name + " vs " + mine.name());
            }
            assertEquals(s.get("Value").asLong(), mine.value(), where);
            assertEquals(s.get("Size").asLong(), mine.size(), where);
            assertEquals(Readelf.value(s.get("Binding")), mine.binding(), where);
            assertEquals(Readelf.value(s.get("Type")), mine.type(), where);
            assertEquals(Readelf.value(s.get("Other")) & 3, mine.visibility(), where);
            assertEquals(Readelf.value(s.get("Section")), mine.sectionIndex(), where);
        }
    }

    @ParameterizedTest
    @MethodSource("files")
    void relocationsMatchReadelf(Path file) {
        ElfFile elf = ElfFile.read(file);
        JsonNode r = Readelf.json(file, "--relocations");
        Map<Integer, JsonNode> bySection = new HashMap<>();
        for (JsonNode s : r.get("Relocations")) {
            bySection.put(s.get("SectionIndex").asInt(), s.get("Relocs"));
        }
        int relaSections = 0;
        for (RelocationSection rs : elf.relocations()) {
            relaSections++;
            JsonNode expected = bySection.get(rs.section().index());
            String what = file + " " + rs.section().name();
            assertEquals(expected == null ? 0 : expected.size(), rs.relocations().size(), what + " count");
            assertEquals(rs.section().info(), rs.target().index(), what + " target");
            List<Symbol> symbols = rs.section().link() == 0 ? List.of() : elf.symbols(elf.section(rs.section().link()));
            for (int i = 0; i < rs.relocations().size(); i++) {
                JsonNode e = expected.get(i).get("Relocation");
                Relocation mine = rs.relocations().get(i);
                assertEquals(e.get("Offset").asLong(), mine.offset(), what + " " + i);
                assertEquals(Readelf.value(e.get("Type")), mine.type() & 0xffffffffL, what + " " + i);
                assertEquals(e.has("Addend") ? e.get("Addend").asLong() : 0, mine.addend(), what + " " + i);
                assertEquals(Readelf.value(e.get("Symbol")), mine.symbolIndex(), what + " " + i + " symbol");
                if (mine.symbolIndex() != 0 && !symbols.get(mine.symbolIndex()).name().isEmpty()) {
                    String name = e.get("Symbol").get("Name").asText();
                    String own = symbols.get(mine.symbolIndex()).name();
                    assertTrue(name.equals(own) || name.startsWith(own + "@"), what + " " + i + ": " + name + " vs " + own);
                }
            }
        }
        long expectedRela = elf.sections().stream().filter(s -> s.type() == Section.SHT_RELA).count();
        assertEquals(expectedRela, relaSections);
    }
}
