package dev.splice.elf.unwind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import dev.splice.testing.Tools;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The FDE ranges Splice reads from .eh_frame are the ones llvm-dwarfdump-22 lists (first FDE for an
 * address, empty ones left out, as BOLT keeps them); mutated sections are read or refused with an
 * offset, never another exception.
 */
class EhFrameRangesTest {
    private static final Pattern FDE = Pattern.compile("FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\\.\\.\\.([0-9a-f]+)");

    @Test
    void rangesAreTheFdesLlvmDwarfdumpLists() {
        int total = 0;
        for (BoltOutputs.Output o : BoltOutputs.all()) {
            TreeMap<Long, Long> expected = new TreeMap<>();
            String dump = Tools.run("llvm-dwarfdump-22", "--eh-frame", o.output().toString()).checked("llvm-dwarfdump-22").stdout();
            Matcher m = FDE.matcher(dump);
            while (m.find()) {
                long start = Long.parseUnsignedLong(m.group(1), 16);
                long end = Long.parseUnsignedLong(m.group(2), 16);
                if (end > start) {
                    expected.putIfAbsent(start, end - start);
                }
            }
            assertEquals(expected, EhFrameRanges.of(ElfFile.read(o.output())), o.id());
            total += expected.size();
        }
        assertTrue(total > 100, "too few FDEs: " + total);
    }

    @Test
    void mutatedSectionsAreReadOrRefused() {
        ElfFile elf = ElfFile.read(BoltOutputs.get("x86_64-exceptions-splitall-reverse-hfsort").output());
        dev.splice.elf.Section s = elf.section(".eh_frame").orElseThrow();
        byte[] original = elf.contents(s);
        Random random = new Random(5);
        for (int trial = 0; trial < 2000; trial++) {
            byte[] b = original.clone();
            for (int k = 0; k < 1 + random.nextInt(4); k++) {
                b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            }
            if (random.nextBoolean()) {
                b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
            }
            try {
                Map<Long, Long> ranges = EhFrameRanges.parse(b, s.address(), "mutated");
                assertTrue(ranges.size() <= b.length / 8);
            } catch (BadInputException e) {
                assertTrue(e.getMessage().startsWith("mutated: offset "), e.getMessage());
            }
        }
    }
}
