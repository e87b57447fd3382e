package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "= 0xADDRESS" comment on the second instruction of an auipc pair agrees with the address
 * GNU objdump resolves for the same instruction.
 */
class PcRelativeCommentTest {
    @Test
    void auipcPairCommentsAgreeWithGnuObjdump() {
        Path program = TestPrograms.rv64("exceptions");
        ElfFile elf = ElfFile.read(program);
        String listing = new ListingWriter(false, Listings.symbols(elf)).toText(Listings.executableSections(elf));
        String objdump = Tools.run("riscv64-linux-gnu-objdump", "-d", program.toString()).checked("objdump").stdout();
        Map<Long, String> objdumpLines = new HashMap<>();
        Matcher line = Pattern.compile("(?m)^\\s*([0-9a-f]+):\\t(.*)$").matcher(objdump);
        while (line.find()) {
            objdumpLines.put(Long.parseLong(line.group(1), 16), line.group(2));
        }
        Matcher pair = Pattern.compile("(?m)# ([0-9a-f]+): [0-9a-f]+ = 0x([0-9a-f]+)").matcher(listing);
        int pairs = 0;
        for (; pair.find(); pairs++) {
            long at = Long.parseLong(pair.group(1), 16);
            String theirs = objdumpLines.get(at);
            if (theirs != null && theirs.contains("\tmv\t")) {
                continue; // addi rd, rd, 0 prints as "mv rd,rd", and objdump adds no address to it
            }
            assertTrue(theirs != null && theirs.contains("# " + pair.group(2)),
                    "at 0x" + pair.group(1) + ": Splice says 0x" + pair.group(2) + ", objdump: " + theirs);
        }
        assertTrue(pairs > 1000, "pairs: " + pairs);
    }
}
