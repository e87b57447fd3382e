package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every line of the readable listing ({@code --aliases}) reassembles: each instruction of every
 * function of {@code exceptions.relocs}, assembled alone at its address (labels replaced by their
 * addresses), gives the original bytes; a compressed instruction that reads as its 32-bit
 * expansion gives that 32-bit instruction, which reads the same (docs/listing.md).
 */
class AliasesReassembleTest {
    private static final Pattern LINE = Pattern.compile("^\\s+(\\S.*?)\\s+# ([0-9a-f]+): ([0-9a-f]+)$");
    private static final Pattern LABEL = Pattern.compile("\\.L([0-9a-f]+)\\b");

    @Test
    void everyReadableLineReassembles() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("exceptions.relocs"));
        SymbolMap symbols = Listings.symbols(elf);
        ListingWriter readable = new ListingWriter(true, symbols);
        HexFormat hex = HexFormat.of();
        int exact = 0;
        int widened = 0;
        for (Function f : elf.functions()) {
            if (f.size() == 0) {
                continue;
            }
            String listing = readable.toText(List.of(Listings.function(elf, f)));
            for (String line : listing.split("\n")) {
                Matcher m = LINE.matcher(line);
                if (!m.matches()) {
                    continue;
                }
                String text = LABEL.matcher(m.group(1)).replaceAll("0x$1");
                long address = Long.parseUnsignedLong(m.group(2), 16);
                String word = m.group(3);
                byte[] original = originalBytes(word);
                byte[] again = Assembler.assemble(text + "\n", f.name() + ".s", address, Map.of()).bytes();
                String where = f.name() + " at 0x" + Long.toHexString(address) + ": '" + m.group(1) + "'";
                if (again.length == original.length) {
                    assertEquals(hex.formatHex(original), hex.formatHex(again), where);
                    exact++;
                } else {
                    assertEquals(2, original.length, where + " reassembles to " + again.length + " bytes");
                    assertEquals(4, again.length, where);
                    String reread = readable.toText(List.of(Region.raw(address, again)));
                    assertTrue(reread.contains("        " + text + " "), where + " reads back as\n" + reread);
                    widened++;
                }
            }
        }
        assertTrue(exact > 10_000 && widened > 10_000, exact + " exact, " + widened + " widened");
    }

    /** The listing comment's word in memory order: objdump order, so a 32-bit word is little-endian. */
    private static byte[] originalBytes(String word) {
        if (word.length() == 4 || word.length() == 8) {
            long v = Long.parseUnsignedLong(word, 16);
            byte[] b = new byte[word.length() / 2];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (v >>> (8 * i));
            }
            return b;
        }
        return HexFormat.of().parseHex(word);
    }
}
