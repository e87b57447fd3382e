package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.campaign.PluginRecords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The record reader on real plugin output and on damaged copies of it. */
class PluginRecordsTest {
    @TempDir static Path tmp;
    private static String validation;
    private static String timing;
    private static String catalog;

    @BeforeAll
    static void recordRealRuns() throws IOException {
        validation = record("validation");
        timing = record("timing");
        catalog = record("catalog");
    }

    private static String record(String mode) throws IOException {
        Path out = tmp.resolve(mode + ".records");
        Tools.run(List.of(QemuRunner.QEMU, "-plugin", PluginFixtures.pluginLibrary() + ",mode=" + mode + ",out=" + out,
                TestPrograms.rv64("plugin_markers").toString()), null, 60).checked("qemu " + mode);
        return Files.readString(out);
    }

    private static BadInputException refused(String text) {
        return assertThrows(BadInputException.class, () -> PluginRecords.parse(text, "x.records"));
    }

    private static void assertRefused(String text, String... fragments) {
        String message = refused(text).getMessage();
        assertTrue(message.startsWith("x.records: "), message);
        for (String f : fragments) {
            assertTrue(message.contains(f), message);
        }
    }

    @Test
    void realFilesParse() {
        PluginRecords v = PluginRecords.parse(validation, "v");
        assertEquals(9, v.validationWindows().size());
        PluginRecords t = PluginRecords.parse(timing, "t");
        assertEquals(9, t.timingWindows().size());
        PluginRecords c = PluginRecords.parse(catalog, "c");
        assertTrue(c.catalog().size() > 10);
        assertEquals(12, c.blocks().size());
        assertEquals(c.footer().translations(), c.blocks().stream().mapToLong(b -> b.translated()).sum());
    }

    @Test
    void everyTruncationIsRefused() {
        String[] lines = validation.split("\n");
        StringBuilder prefix = new StringBuilder();
        for (int i = 0; i < lines.length - 1; i++) {
            prefix.append(lines[i]).append('\n');
            refused(prefix.toString());
        }
        assertRefused(validation.substring(0, validation.length() - 1), "unterminated");
        assertRefused(validation.replace("\nend\n", "\n"), "line " + lines.length, "missing 'end' line", "truncated");
        assertRefused("", "empty record file");
    }

    @Test
    void inconsistentContentIsRefusedWithItsLine() {
        // The first window's first encoding line, with its count changed: the sum no longer closes.
        int at = validation.indexOf("\ne ") + 1;
        int eol = validation.indexOf('\n', at);
        String line = validation.substring(at, eol);
        String changed = line.substring(0, line.lastIndexOf(' ')) + " 99";
        assertRefused(validation.substring(0, at) + changed + validation.substring(eol), "sum to");
        assertRefused(validation.replace("footer windows 9 ", "footer windows 8 "), "footer counts 8 windows");
        assertRefused(validation.replace("splice-plugin-records 1", "splice-plugin-records 2"), "line 1",
                "format version 2");
        assertRefused(validation.replace("mode validation", "mode fast"), "line 2", "unknown mode 'fast'");
        assertRefused(validation + "window 9\n", "content after the end line");
        assertRefused(timing.replace(" ok\n", " late\n"), "status 'late'");
        assertRefused(timing.replace("window 1 ", "window 2 "), "window index 2, expected 1");
        assertRefused(validation.replace("range 0x", "range 0X"), "line 5", "hexadecimal");
        assertRefused(validation.replace("vcpus 1", "vcpus -1"), "not a decimal number");
        assertRefused(catalog.replaceFirst("\nc (0x[0-9a-f]+) 2 ", "\nc $1 3 "), "instruction size 3");
        assertRefused(catalog.replaceFirst("\ncatalog ", "\ncatalog 9"), "the catalog announces 9");
        assertRefused(catalog.replaceFirst("\nb direct ", "\nb exit "), "block kind 'exit' appears twice");
        assertRefused(catalog.replaceFirst("\nblocks 12", "\nblocks 13"), "line");
        // The first window's first two encoding lines swapped: out of order, or a repeat when equal.
        int second = validation.indexOf('\n', eol + 1);
        String next = validation.substring(eol + 1, second);
        assertRefused(validation.substring(0, at) + next + "\n" + line + validation.substring(second), "not sorted");
        assertRefused(validation.substring(0, at) + line + "\n" + line + validation.substring(second), "not sorted");
    }

    @Test
    void numbersBeyond64BitsAreRefusedNotThrown() {
        // Issue 15: 19 digits above Long.MAX_VALUE threw NumberFormatException; counts whose sum overflows, ArithmeticException.
        assertRefused(validation.replace("vcpus 1", "vcpus 9999999999999999999"), "out of range");
        int first = validation.indexOf("\ne ") + 1;
        int second = validation.indexOf("\ne ", first) + 1;
        String big = " " + Long.MAX_VALUE;
        StringBuilder t = new StringBuilder(validation);
        int eol2 = t.indexOf("\n", second);
        t.replace(t.lastIndexOf(" ", eol2), eol2, big);
        int eol1 = t.indexOf("\n", first);
        t.replace(t.lastIndexOf(" ", eol1), eol1, big);
        assertRefused(t.toString(), "overflow");
    }

    @Test
    void everySingleCharacterCorruptionIsRefusedOrStillConsistent() {
        // Never an unchecked exception, whatever character is damaged.
        for (String text : new String[] {validation, timing, catalog}) {
            for (int i = 0; i < text.length(); i++) {
                for (char c : new char[] {'x', '9', ' ', '\n'}) {
                    String damaged = text.substring(0, i) + c + text.substring(i + 1);
                    try {
                        PluginRecords.parse(damaged, "d");
                    } catch (BadInputException expected) {
                        assertTrue(expected.getMessage().startsWith("d: "), expected.getMessage());
                    }
                }
            }
        }
    }

    @Test
    void binaryContentIsRefusedWithItsOffset() throws IOException {
        Path file = tmp.resolve("binary.records");
        byte[] bytes = validation.getBytes(StandardCharsets.US_ASCII);
        bytes[10] = (byte) 0xc3;
        Files.write(file, bytes);
        BadInputException e = assertThrows(BadInputException.class, () -> PluginRecords.read(file));
        assertTrue(e.getMessage().contains("byte offset 10"), e.getMessage());
    }
}
