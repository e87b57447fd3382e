package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatFunction;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.testing.ExecTrace;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outputs that can be patched again (issue 17): the output's relocation sections describe the
 * output (checked against GNU objdump's decoding of the instructions they name), a second
 * {@code splice patch} of an output runs as the input does under qemu-riscv64, its BAT maps to
 * the first input (checked against QEMU exec traces of both runs), and llvm-bolt-22 rewrites an
 * output into a program that runs identically.
 */
class RepatchTest {
    private static final String NOP = "addi x0, x0, 0\n";
    private static final String SYSROOT = "/usr/riscv64-linux-gnu";

    @TempDir
    Path dir;

    private static Rewrite.Result atBlocks(Path binary, String... functions) {
        Rewrite r = Rewrite.open(binary);
        for (String f : functions) {
            r.at(PointSpec.parse("block:" + f), NOP, "nop", BranchTarget.INSERTED);
        }
        return r.run();
    }

    @Test
    void staticOutputPatchedAgainRunsAsTheInputAndItsBatReachesTheFirstInput() throws IOException {
        Path in = TestPrograms.rv64("loops.relocs");
        Path once = PatchFixtures.write(dir, "once", atBlocks(in, "fib", "classify", "hot_loop").bytes());
        // Again: functions moved by the first pass (fib, hot_loop) and one it left (apply_all).
        Path twice = PatchFixtures.write(dir, "twice", atBlocks(once, "fib", "hot_loop", "apply_all").bytes());
        PatchFixtures.assertSameRun(in, once, "60");
        PatchFixtures.assertSameRun(in, twice, "60");
        ElfFile out = ElfFile.read(twice);
        assertEquals(1, out.sections().stream().filter(s -> s.name().equals(BatTables.SECTION_NAME)).count(), "one BAT note");
        assertBatReachesInput(ElfFile.read(in), in, out, twice, List.of("fib", "hot_loop", "apply_all", "classify"), "60");
    }

    @Test
    void cppExceptionsOutputPatchedAgainRuns() throws IOException {
        Path in = TestPrograms.rv64("exceptions.relocs");
        Path once = PatchFixtures.write(dir, "once", Rewrite.open(in).insertAtEntries(NOP, "nop", BranchTarget.INSERTED).run().bytes());
        Path twice = PatchFixtures.write(dir, "twice",
                Rewrite.open(once).insertAtEntries(NOP, "nop", BranchTarget.INSERTED).run().bytes());
        PatchFixtures.assertSameRun(in, twice);
    }

    /**
     * A PIE patched once and again (the second time with counters) runs as the input, and so do both
     * after GNU strip and objcopy --strip-all: the first pass grows the program header table in place
     * (the interpreter's path and the notes that followed it move into the new code's segment), the
     * second grows the first pass's code segment and the program's R W segment, so the table keeps its
     * place and size. Before session 10 the first pass moved the table to a PT_LOAD of its own, and
     * the stripped PIE failed with "Error mapping file".
     */
    @Test
    void pieOutputPatchedAgainRunsAndBothStripToProgramsThatRun() throws IOException {
        Path in = TestPrograms.rv64Pie("loops");
        Path once = PatchFixtures.write(dir, "once", atBlocks(in, "*").bytes());
        Path counts = dir.resolve("main.counters");
        Path twice = PatchFixtures.write(dir, "twice", Rewrite.open(once)
                .at(PointSpec.parse("block:*"), NOP, "nop", BranchTarget.INSERTED)
                .at(PointSpec.parse("entry:main"), FragmentExamples.read("function-entry-counter.s"), "entry", BranchTarget.INSERTED)
                .counterFile(counts.toString()).run().bytes());
        ElfFile input = ElfFile.read(in);
        assertEquals(input.header().phoff(), ElfFile.read(once).header().phoff(), "the table stays in place");
        assertEquals(ElfFile.read(once).segments().size(), ElfFile.read(twice).segments().size());
        for (Path out : List.of(once, twice)) {
            Path stripped = dir.resolve(out.getFileName() + ".stripped");
            Tools.run("riscv64-linux-gnu-strip", "-o", stripped.toString(), out.toString()).checked("strip");
            Path copied = dir.resolve(out.getFileName() + ".objcopy");
            Tools.run("riscv64-linux-gnu-objcopy", "--strip-all", out.toString(), copied.toString()).checked("objcopy");
            for (Path p : List.of(out, stripped, copied)) {
                java.nio.file.Files.deleteIfExists(counts);
                assertSameDynamicRun(in, p);
                if (out == twice) {
                    // a slot per insertion; only main's entry counter counts, once
                    assertEquals(1, java.util.Arrays.stream(FragmentTemplateTest.slots(counts)).sum(), p + ": the counters' sum");
                }
            }
        }
    }

    @Test
    void relocationsOfTheNewCodeAgreeWithObjdump() throws IOException {
        Path in = TestPrograms.rv64("loops.relocs");
        Path out = PatchFixtures.write(dir, "out", atBlocks(in, "*").bytes());
        Map<Long, Line> code = objdump(out);
        List<Reloc> relocs = relocations(out);
        ElfFile elf = ElfFile.read(out);
        Section text = elf.section(NewSection.NAME).orElseThrow();
        Map<Long, Reloc> highParts = new HashMap<>();
        int checked = 0;
        for (Reloc r : relocs) {
            if (!r.section().equals(OutputRelocations.SECTION)) {
                continue;
            }
            assertTrue(text.contains(r.offset()), r + " lies outside " + NewSection.NAME);
            Line at = code.get(r.offset());
            assertTrue(at != null, r + ": no instruction starts there");
            switch (r.type()) {
                case "R_RISCV_BRANCH", "R_RISCV_JAL", "R_RISCV_RVC_BRANCH", "R_RISCV_RVC_JUMP" ->
                        assertEquals(r.value(), at.target(), r + " on " + at);
                case "R_RISCV_CALL", "R_RISCV_CALL_PLT" -> {
                    assertEquals("auipc", at.mnemonic(), r + " on " + at);
                    Line jalr = code.get(r.offset() + 4);
                    assertEquals("jalr", jalr.mnemonic(), r + " before " + jalr);
                    assertEquals(r.value(), jalr.target(), r + " completed by " + jalr);
                }
                case "R_RISCV_PCREL_HI20", "R_RISCV_GOT_HI20", "R_RISCV_TLS_GOT_HI20", "R_RISCV_TLS_GD_HI20" -> {
                    assertEquals("auipc", at.mnemonic(), r + " on " + at);
                    highParts.put(r.offset(), r);
                }
                default -> { }
            }
            checked++;
        }
        int pairs = 0;
        for (Reloc r : relocs) {
            if (r.section().equals(OutputRelocations.SECTION) && r.type().startsWith("R_RISCV_PCREL_LO12")) {
                Reloc high = highParts.get(r.value());
                assertTrue(high != null, r + " names no auipc with a high part");
                if (high.type().equals("R_RISCV_PCREL_HI20")) {
                    assertEquals(high.value(), code.get(r.offset()).target(), r + " completes " + high);
                    pairs++;
                }
            }
        }
        assertTrue(checked > 10_000 && pairs > 1_000, checked + " relocations, " + pairs + " pairs");
        // The old bodies keep no relocation but the one of their jump to the copy.
        for (Function f : elf.functions()) {
            if (f.name().endsWith(".splice.org")) {
                for (Reloc r : relocs) {
                    if (r.offset() > f.address() && r.offset() < f.endAddress() && r.section().equals(".rela.text")) {
                        assertEquals("R_RISCV_NONE", r.type(), r + " in the old body of " + f.name());
                    }
                }
            }
        }
    }

    @Test
    void llvmBoltRewritesStaticAndPieOutputsIntoProgramsThatRunIdentically() throws IOException {
        Path staticIn = TestPrograms.rv64("loops.relocs");
        Path staticOut = PatchFixtures.write(dir, "static", atBlocks(staticIn, "*").bytes());
        Path staticBolt = bolt(staticOut);
        PatchFixtures.assertSameRun(staticIn, staticBolt, "60");
        Path pieIn = TestPrograms.rv64Pie("loops");
        Path pieBolt = bolt(PatchFixtures.write(dir, "pie", atBlocks(pieIn, "*").bytes()));
        assertSameDynamicRun(pieIn, pieBolt);
    }

    @Test
    void boltOutputIsRefused() {
        Path in = TestPrograms.rv64("loops.relocs");
        Path bolted = dir.resolve("bolted");
        Tools.run(Tools.require("llvm-bolt-22"), in.toString(), "-o", bolted.toString()).checked("llvm-bolt-22");
        ElfFile elf = ElfFile.read(bolted);
        long fib = elf.function("fib").orElseThrow().address();
        PatchException e = org.junit.jupiter.api.Assertions.assertThrows(PatchException.class,
                () -> Inserter.insert(elf, List.of(new Insertion(fib, NOP, BranchTarget.INSERTED))));
        assertEquals(PatchException.Reason.ALREADY_REWRITTEN, e.reason());
        assertTrue(e.getMessage().contains("rewritten by BOLT (has .bolt.org"), e.getMessage());
    }

    private Path bolt(Path binary) {
        Path out = dir.resolve(binary.getFileName() + ".bolt");
        Tools.Result r = Tools.run(List.of(Tools.require("llvm-bolt-22"), binary.toString(), "-o", out.toString(),
                "--reorder-blocks=ext-tsp"), "", 600);
        assertEquals(0, r.exitCode(), "llvm-bolt-22 " + binary + ": " + r.stderr());
        assertFalse(r.stderr().contains("error"), r.stderr());
        return out;
    }

    private static void assertSameDynamicRun(Path original, Path rewritten) {
        Tools.Result before = Tools.run(List.of(Tools.require("qemu-riscv64"), "-L", SYSROOT, original.toString()), "", 120);
        Tools.Result after = Tools.run(List.of(Tools.require("qemu-riscv64"), "-L", SYSROOT, rewritten.toString()), "", 120);
        assertEquals(before.stdout(), after.stdout(), "stdout of " + rewritten);
        assertEquals(before.exitCode(), after.exitCode(), "exit status of " + rewritten + "; stderr " + after.stderr());
    }

    /**
     * Every instruction that ran in a moved function of the output, translated by the output's BAT
     * to the first input, ran there as often in the input's run (the most frequent output address
     * of each input address is the original instruction; fragments before it run as often).
     */
    private static void assertBatReachesInput(ElfFile inElf, Path in, ElfFile out, Path outPath, List<String> names,
                                              String... args) {
        BatTables bat = BatTables.read(out);
        ExecTrace inTrace = ExecTrace.of(in, args);
        ExecTrace outTrace = ExecTrace.of(outPath, args);
        int compared = 0;
        for (String name : names) {
            Function moved = out.function(name).orElseThrow();
            Function original = inElf.function(name).orElseThrow();
            BatFunction f = bat.functions().stream().filter(b -> b.address() == moved.address()).findFirst().orElseThrow(
                    () -> new AssertionError(name + " has no BAT entry at 0x" + Long.toHexString(moved.address())));
            Map<Long, Long> translated = new TreeMap<>();
            for (long a = moved.address(); a < moved.endAddress(); a += 2) {
                long n = outTrace.executions().getOrDefault(a, 0L);
                if (n > 0) {
                    long inAddress = original.address() + bat.translate(f.address(), a - moved.address(), true);
                    translated.merge(inAddress, n, Math::max);
                }
            }
            Map<Long, Long> expected = new TreeMap<>();
            for (long a = original.address(); a < original.endAddress(); a += 2) {
                long n = inTrace.executions().getOrDefault(a, 0L);
                if (n > 0) {
                    expected.put(a, n);
                }
            }
            assertEquals(expected, translated, name + ": executions through the composed BAT");
            compared += expected.size();
        }
        assertTrue(compared > 20, compared + " addresses compared");
    }

    /** One relocation as llvm-readelf-22 -r prints it: its section, offset, type and symbol value plus addend. */
    private record Reloc(String section, long offset, String type, long value) {}

    private static final Pattern RELOC_SECTION = Pattern.compile("^Relocation section '([^']+)'");
    private static final Pattern RELOC = Pattern.compile("^([0-9a-f]{16})\\s+[0-9a-f]{16}\\s+(R_RISCV_\\w+)\\s*(.*)$");
    private static final Pattern SYMBOL_PLUS = Pattern.compile("^([0-9a-f]{16})\\s+\\S.*?\\s([+-])\\s([0-9a-f]+)$");

    private static List<Reloc> relocations(Path binary) {
        String text = Tools.run(Tools.require("llvm-readelf-22"), "-r", binary.toString()).checked("llvm-readelf-22 -r").stdout();
        List<Reloc> out = new ArrayList<>();
        String section = "";
        for (String line : text.split("\n")) {
            Matcher s = RELOC_SECTION.matcher(line);
            if (s.find()) {
                section = s.group(1);
                continue;
            }
            Matcher m = RELOC.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            String rest = m.group(3).trim();
            long value;
            Matcher sym = SYMBOL_PLUS.matcher(rest);
            if (sym.matches()) {
                long addend = Long.parseUnsignedLong(sym.group(3), 16);
                value = Long.parseUnsignedLong(sym.group(1), 16) + (sym.group(2).equals("-") ? -addend : addend);
            } else {
                value = rest.isEmpty() ? 0 : Long.parseUnsignedLong(rest.split("\\s+")[rest.split("\\s+").length - 1], 16);
            }
            out.add(new Reloc(section, Long.parseUnsignedLong(m.group(1), 16), m.group(2), value));
        }
        return out;
    }

    /** One instruction as GNU objdump prints it, with the target it names ({@code <...>} or the comment), or -1. */
    private record Line(long address, String mnemonic, long target) {}

    private static final Pattern INSN = Pattern.compile("^\\s*([0-9a-f]+):\\s+[0-9a-f]+\\s+(\\S+)(.*)$");
    private static final Pattern TARGET = Pattern.compile("([0-9a-f]+) <[^>]*>\\s*$");

    private static Map<Long, Line> objdump(Path binary) {
        String text = Tools.run(Tools.require("riscv64-linux-gnu-objdump"), "-d", "-M", "no-aliases", "-j", NewSection.NAME,
                binary.toString()).checked("objdump -d").stdout();
        Map<Long, Line> out = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = INSN.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Matcher t = TARGET.matcher(m.group(3));
            long target = t.find() ? Long.parseUnsignedLong(t.group(1), 16) : -1;
            long address = Long.parseUnsignedLong(m.group(1), 16);
            out.put(address, new Line(address, m.group(2), target));
        }
        return out;
    }
}
