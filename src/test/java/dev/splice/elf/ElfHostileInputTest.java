package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * Forged ELF inputs from issue 15: an executable section of type SHT_NULL (its size escaped the
 * file-range checks, and readers sized arrays by it), and extended program header numbering (PN_XNUM) through reader and editor.
 */
class ElfHostileInputTest {
    private static byte[] program() throws IOException {
        return Files.readAllBytes(TestPrograms.rv64("count_loop.relocs"));
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static int sectionHeader(byte[] b, String name) {
        ElfFile elf = ElfFile.parse(b, "seed");
        return (int) (elf.header().shoff() + (long) elf.section(name).orElseThrow().index() * Section.HEADER_SIZE);
    }

    @Test
    void anExecutableSectionOfTypeNullIsRefused() throws IOException {
        byte[] b = program();
        int text = sectionHeader(b, ".text");
        le(b).putInt(text + 4, Section.SHT_NULL);
        le(b).putLong(text + 32, 0x7fff_ffff_0000L); // a size no file has
        ElfFormatException e = assertThrows(ElfFormatException.class, () -> ElfFile.parse(b, "forged"));
        assertEquals(text + 8, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("type NULL"), e.getMessage());
    }

    @Test
    void extendedProgramHeaderNumberingIsReadAndWrittenBack() throws IOException {
        byte[] b = program();
        ElfFile original = ElfFile.parse(b, "seed");
        int count = original.segments().size();
        le(b).putShort(56, (short) ElfHeader.PN_XNUM);
        le(b).putInt((int) original.header().shoff() + 44, count); // section 0's sh_info holds the real count
        ElfFile xnum = ElfFile.parse(b, "xnum");
        assertEquals(original.segments(), xnum.segments());
        byte[] written = xnum.edit().toBytes();
        assertEquals(ElfHeader.PN_XNUM, le(written).getShort(56) & 0xffff, "e_phnum");
        assertArrayEquals(b, written);
    }
}
