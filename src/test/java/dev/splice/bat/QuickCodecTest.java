package dev.splice.bat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.splice.elf.ElfFile;
import org.junit.jupiter.api.Test;

class QuickCodecTest {
    @Test
    void roundTrip() {
        for (BoltOutputs.Output o : BoltOutputs.all()) {
            ElfFile elf = ElfFile.read(o.output());
            BatTables t = BatTables.read(elf);
            System.out.println(o + ": " + t.functions().size() + " hot, " + t.coldFragments().size() + " cold "
                    + t.functions().stream().mapToInt(f -> f.secondaryEntryPoints().size()).sum() + " sep");
            assertArrayEquals(elf.contents(elf.section(".note.bolt_bat").get()), t.encodeNote());
        }
    }
}
