package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Disassemble, then assemble: the same bytes, for all the code of every test program. */
class RoundTripTest {
    @Test
    void everyExecutableSectionOfEveryProgramReassemblesToItsBytes() {
        List<Path> programs = TestPrograms.allRv64();
        assertTrue(programs.size() >= 9, "test programs: " + programs);
        int sections = 0;
        for (Path program : programs) {
            ElfFile elf = ElfFile.read(program);
            ListingWriter writer = new ListingWriter(false, Listings.symbols(elf));
            for (Region region : Listings.executableSections(elf)) {
                String text = writer.toText(List.of(region));
                Assembly assembly = Assembler.assemble(text, program.getFileName() + region.name());
                assertEquals(1, assembly.regions().size());
                Region back = assembly.regions().get(0);
                assertEquals(region.address(), back.address(), program + " " + region.name());
                assertEquals(region.name(), back.name());
                assertArrayEquals(region.bytes(), back.bytes(), program + " " + region.name());
                sections++;
            }
        }
        // Every program has at least one executable section (hand-written assembly programs have only .text).
        assertTrue(sections >= programs.size(), "sections checked: " + sections);
    }

    @Test
    void aWholeFileListingWithSeveralSectionsReassemblesEachOfThem() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("exceptions"));
        List<Region> regions = Listings.executableSections(elf);
        assertTrue(regions.size() >= 2);
        Assembly assembly = Assembler.assemble(new ListingWriter().toText(regions), "exceptions.s");
        assertEquals(regions.size(), assembly.regions().size());
        for (int i = 0; i < regions.size(); i++) {
            assertEquals(regions.get(i).address(), assembly.regions().get(i).address());
            assertArrayEquals(regions.get(i).bytes(), assembly.regions().get(i).bytes());
        }
    }

    @Test
    void everyFunctionOfEveryProgramReassemblesToItsBytes() {
        int functions = 0;
        for (Path program : TestPrograms.allRv64()) {
            ElfFile elf = ElfFile.read(program);
            ListingWriter writer = new ListingWriter(false, Listings.symbols(elf));
            for (Function f : elf.functions()) {
                if (f.size() == 0 || !f.section().isExecutable()) {
                    continue;
                }
                Region region = Listings.function(elf, f);
                String text = writer.toText(List.of(region));
                assertArrayEquals(region.bytes(), Assembler.assemble(text, f.name()).bytes(), program + " " + f.name());
                functions++;
            }
        }
        assertTrue(functions > 1000, "functions checked: " + functions);
    }

    @Test
    void rawBytesWithInvalidWordsAndOddTailsRoundTrip() {
        // Every 16-bit parcel value once, then a 4-byte-length parcel cut short, then an odd byte.
        byte[] bytes = new byte[65536 * 2 + 3];
        for (int i = 0; i < 65536; i++) {
            bytes[2 * i] = (byte) i;
            bytes[2 * i + 1] = (byte) (i >>> 8);
        }
        bytes[bytes.length - 3] = 0x13;
        bytes[bytes.length - 2] = 0x00;
        bytes[bytes.length - 1] = 0x7f;
        Region region = Region.raw(0x1000, bytes);
        String text = new ListingWriter().toText(List.of(region));
        assertArrayEquals(bytes, Assembler.assemble(text, "raw.s").bytes());
        assertEquals(0x1000, Assembler.assemble(text, "raw.s").address());
    }
}
