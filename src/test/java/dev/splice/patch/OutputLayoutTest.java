package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outputs waste no file space (issue 17's benchmark noted a 716 KB hole where the input's
 * {@code .symtab} and {@code .strtab} had been before they grew and moved): as GNU readelf sees
 * them, every byte of a once- and a twice-patched output lies in the ELF header, a header table, a
 * segment or a section, but for gaps shorter than a page (alignment, and the page congruence of
 * new segments); the outputs stay valid for readelf, llvm-readelf-22 and objdump, run as the
 * input, and both still run stripped.
 */
class OutputLayoutTest {
    private static final String NOP = "addi x0, x0, 0\n";
    private static final Pattern SECTION = Pattern.compile(
            "^\\s*\\[\\s*\\d+]\\s+(\\S+)\\s+(\\S+)\\s+[0-9a-f]+\\s+([0-9a-f]+)\\s+([0-9a-f]+)", Pattern.MULTILINE);
    private static final Pattern SEGMENT = Pattern.compile(
            "^\\s*[A-Z_0-9]+\\s+0x([0-9a-f]+)\\s+0x[0-9a-f]+\\s+0x[0-9a-f]+\\s+0x([0-9a-f]+)", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    void patchedOutputsHaveNoHolesAndStayValid() throws IOException {
        Path in = TestPrograms.rv64("loops.relocs");
        Path once = PatchFixtures.write(dir, "once", Rewrite.open(in).insertAtEntries(NOP, "nop", BranchTarget.INSERTED).run().bytes());
        Path twice = PatchFixtures.write(dir, "twice",
                Rewrite.open(once).insertAtEntries(NOP, "nop", BranchTarget.INSERTED).run().bytes());
        for (Path out : List.of(once, twice)) {
            long largest = largestGap(out);
            assertTrue(largest < ElfEditor.PAGE_SIZE, out + ": a gap of " + largest + " bytes that nothing covers");
            Tools.Result gnu = Tools.run("readelf", "-a", "-W", out.toString());
            assertEquals("", gnu.stderr(), "readelf -a " + out);
            Tools.Result llvm = Tools.run(Tools.require("llvm-readelf-22"), "-a", out.toString());
            assertEquals("", llvm.stderr(), "llvm-readelf-22 -a " + out);
            Tools.Result objdump = Tools.run("riscv64-linux-gnu-objdump", "-d", out.toString());
            assertEquals(0, objdump.exitCode(), objdump.stderr());
            assertEquals("", objdump.stderr(), "objdump -d " + out);
            PatchFixtures.assertSameRun(in, out, "60");
        }
        // The second pass adds less than the first pass's output holds plus its own new code.
        assertTrue(Files.size(twice) < 2 * Files.size(once), Files.size(once) + " then " + Files.size(twice));
        // Stripped (strip, objcopy --strip-all), both still run: the once-patched output's program header
        // table grew in place, and the second pass grew the first pass's code segment instead of adding one
        // (a table moved to a PT_LOAD of its own was written by GNU strip at an offset not congruent to its
        // address: "Error mapping file"; docs/elf.md).
        assertEquals(ElfFile.read(once).segments().size(), ElfFile.read(twice).segments().size());
        for (Path out : List.of(once, twice)) {
            Path stripped = dir.resolve(out.getFileName() + ".stripped");
            Tools.run("riscv64-linux-gnu-strip", "-o", stripped.toString(), out.toString()).checked("strip");
            PatchFixtures.assertSameRun(in, stripped, "60");
            Path copied = dir.resolve(out.getFileName() + ".objcopy");
            Tools.run("riscv64-linux-gnu-objcopy", "--strip-all", out.toString(), copied.toString()).checked("objcopy");
            PatchFixtures.assertSameRun(in, copied, "60");
        }
    }

    /**
     * A second pass that needs a data area of its own (counters) on a static output: the area grows the
     * program's R W segment below the first pass's code, whose segment the new code grows, so the output
     * keeps the first pass's program header table and still runs after GNU strip and objcopy (before,
     * the area took a PT_LOAD, the table moved to a PT_LOAD of its own, and the stripped output failed
     * with "Error mapping file"). Both passes' counters are written and exact.
     */
    @Test
    void aSecondPassWithCountersKeepsTheTableAndStripsToAProgramThatRuns() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Path first = dir.resolve("first.counters");
        Path second = dir.resolve("second.counters");
        Path once = PatchFixtures.write(dir, "once", Rewrite.open(in)
                .at(PointSpec.parse("block:hot_loop"), FragmentExamples.read("block-counter.s"), "block", BranchTarget.INSERTED)
                .counterFile(first.toString()).run().bytes());
        Path twice = PatchFixtures.write(dir, "twice", Rewrite.open(once)
                .at(PointSpec.parse("entry:main"), FragmentExamples.read("function-entry-counter.s"), "entry", BranchTarget.INSERTED)
                .counterFile(second.toString()).run().bytes());
        assertEquals(ElfFile.read(once).segments().size(), ElfFile.read(twice).segments().size());
        long[] onceCounts = FragmentTemplateTest.run(once, first, "60");
        assertTrue(onceCounts.length > 1 && java.util.Arrays.stream(onceCounts).anyMatch(c -> c == 60), java.util.Arrays.toString(onceCounts));
        for (Path out : List.of(twice, strip(twice, "riscv64-linux-gnu-strip", "-o"),
                strip(twice, "riscv64-linux-gnu-objcopy", "--strip-all"))) {
            PatchFixtures.assertSameRun(in, out, "60");
            assertEquals(java.util.Arrays.toString(onceCounts), java.util.Arrays.toString(FragmentTemplateTest.run(out, first, "60")), out.toString());
            assertEquals("[1]", java.util.Arrays.toString(FragmentTemplateTest.run(out, second, "60")), "main's entries: " + out);
        }
    }

    /** {@code tool} applied to {@code file}: {@code strip -o OUT IN} or {@code objcopy --strip-all IN OUT}. */
    private Path strip(Path file, String tool, String option) {
        Path out = dir.resolve(file.getFileName() + "." + Path.of(tool).getFileName());
        List<String> command = option.equals("-o") ? List.of(tool, "-o", out.toString(), file.toString())
                : List.of(tool, option, file.toString(), out.toString());
        Tools.run(command, null, 60).checked(tool);
        return out;
    }

    /** The longest run of file bytes outside the ELF header, the header tables, every segment and every section. */
    private static long largestGap(Path file) throws IOException {
        List<long[]> covered = new ArrayList<>();
        covered.add(new long[] {0, 64});
        String sections = Tools.run("readelf", "-S", "-W", file.toString()).checked("readelf -S").stdout();
        Matcher s = SECTION.matcher(sections);
        while (s.find()) {
            if (!s.group(2).equals("NOBITS") && !s.group(2).equals("NULL")) {
                long offset = Long.parseLong(s.group(3), 16);
                covered.add(new long[] {offset, offset + Long.parseLong(s.group(4), 16)});
            }
        }
        String segments = Tools.run("readelf", "-l", "-W", file.toString()).checked("readelf -l").stdout();
        Matcher g = SEGMENT.matcher(segments.substring(segments.indexOf("Program Headers:")));
        while (g.find()) {
            long offset = Long.parseLong(g.group(1), 16);
            covered.add(new long[] {offset, offset + Long.parseLong(g.group(2), 16)});
        }
        String header = Tools.run("readelf", "-h", "-W", file.toString()).checked("readelf -h").stdout();
        covered.add(table(header, "Start of program headers:", "Size of program headers:", "Number of program headers:"));
        covered.add(table(header, "Start of section headers:", "Size of section headers:", "Number of section headers:"));
        covered.sort((a, b) -> Long.compare(a[0], b[0]));
        long end = 0;
        long largest = 0;
        for (long[] c : covered) {
            largest = Math.max(largest, c[0] - end);
            end = Math.max(end, c[1]);
        }
        return Math.max(largest, Files.size(file) - end);
    }

    private static long[] table(String header, String start, String size, String count) {
        long at = number(header, start);
        return new long[] {at, at + number(header, size) * number(header, count)};
    }

    private static long number(String header, String label) {
        Matcher m = Pattern.compile(Pattern.quote(label) + "\\s+(\\d+)").matcher(header);
        assertTrue(m.find(), label);
        return Long.parseLong(m.group(1));
    }
}
