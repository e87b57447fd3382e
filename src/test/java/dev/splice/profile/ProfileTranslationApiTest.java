package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public surface: a profile from a reader translates as the same profile from a file; both writers agree. */
class ProfileTranslationApiTest {
    @Test
    void readersAndFilesWritersAndPathsGiveTheSameProfile(@TempDir Path dir) throws IOException {
        BoltOutputs.Output o = BoltOutputs.get("rv64-loops-split-exttsp-cdsort-icf");
        ElfFile elf = ElfFile.read(o.output());
        String text = Perf2boltAgreementTest.randomProfile(elf, o.output(), 3, 3000);
        Path pa = dir.resolve("p.pa");
        Files.writeString(pa, text);
        TranslatedProfile fromFile = ProfileTranslation.translate(o.output(), pa, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                ProfileTranslation.Options.DEFAULTS);
        TranslatedProfile fromReader = ProfileTranslation.translate(elf, new StringReader(text),
                ProfileTranslation.InputFormat.PRE_AGGREGATED, ProfileTranslation.Options.DEFAULTS);
        assertEquals(fromFile.fdata(), fromReader.fdata());
        assertEquals(3000, fromReader.lines());
        assertTrue(fromReader.fdata().branches().size() > 100, "a real profile");
        for (ProfileTranslation.OutputFormat format : ProfileTranslation.OutputFormat.values()) {
            Path out = dir.resolve("out." + format);
            fromFile.write(out, format);
            StringWriter w = new StringWriter();
            fromReader.write(w, format);
            assertEquals(Files.readString(out), w.toString(), format.toString());
        }
    }

    @Test
    void badLinesAndYamlOfAPlainBinaryAreRefused() throws IOException {
        ElfFile plain = ElfFile.read(TestPrograms.rv64("loops"));
        BadInputException bad = assertThrows(BadInputException.class, () -> ProfileTranslation.translate(plain,
                new StringReader("B 10000 10004 1 0\nX what\n"), ProfileTranslation.InputFormat.PRE_AGGREGATED,
                ProfileTranslation.Options.DEFAULTS));
        assertTrue(bad.getMessage().startsWith("profile:2:"), bad.getMessage());
        TranslatedProfile skipped = ProfileTranslation.translate(plain, new StringReader("B 10000 10004 1 0\nX what\n"),
                ProfileTranslation.InputFormat.PRE_AGGREGATED, new ProfileTranslation.Options(false, true, null, null));
        assertEquals(1, skipped.badLines());
        assertTrue(skipped.firstBadLine().startsWith("profile:2:"), skipped.firstBadLine());
        BadInputException yaml = assertThrows(BadInputException.class,
                () -> skipped.write(new StringWriter(), ProfileTranslation.OutputFormat.YAML));
        assertTrue(yaml.getMessage().contains("YAML"), yaml.getMessage());
    }
}
