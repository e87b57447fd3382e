package dev.splice.elf.reloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Tag_RISCV_arch is read as GNU readelf prints it; damaged sections give no string, never an exception. */
class RiscVAttributesTest {
    private static final Pattern ARCH = Pattern.compile("Tag_RISCV_arch: \"([^\"]*)\"");

    @Test
    void archIsWhatReadelfPrints() {
        int found = 0;
        for (Path p : TestPrograms.allRv64()) {
            Matcher m = ARCH.matcher(Tools.run("readelf", "-A", p.toString()).checked("readelf").stdout());
            Optional<String> expected = m.find() ? Optional.of(m.group(1)) : Optional.empty();
            assertEquals(expected, RiscVAttributes.arch(ElfFile.read(p)), p.toString());
            found += expected.isPresent() ? 1 : 0;
        }
        assertTrue(found > 10, "too few programs with Tag_RISCV_arch: " + found);
        assertEquals(Optional.empty(), RiscVAttributes.arch(ElfFile.read(TestPrograms.x86_64("loops"))));
    }

    @Test
    void damagedSectionsGiveNoStringOrOne() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        byte[] original = elf.contents(elf.section(".riscv.attributes").orElseThrow());
        Random random = new Random(11);
        for (int trial = 0; trial < 3000; trial++) {
            byte[] b = original.clone();
            for (int k = 0; k < 1 + random.nextInt(3); k++) {
                b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            }
            if (random.nextBoolean()) {
                b = java.util.Arrays.copyOf(b, random.nextInt(b.length + 1));
            }
            RiscVAttributes.arch(b).ifPresent(arch -> assertTrue(arch.length() < original.length, arch));
        }
    }
}
