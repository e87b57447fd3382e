package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatColdFragment;
import dev.splice.bat.BatFunction;
import dev.splice.bat.BatMap;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Debug information follows moved code (docs/patch.md, "Debug information"): the -g builds of
 * the C and C++ programs, a fragment at every function entry and at every block of {@code main},
 * then GNU addr2line, gdb and llvm-dwarfdump-22 --verify as the oracles, against the input.
 */
class DebugInfoTest {
    private static final String NOP = "addi x0, x0, 0\n";
    /** The programs' own functions whose every block gets a fragment too. */
    private static final Map<String, List<String>> BLOCKS = Map.of("loops", List.of("main", "hot_loop", "classify"),
            "fragment_calls", List.of("main"), "exceptions", List.of("main"), "units", List.of("main", "pick"));
    private static final Pattern FDE = Pattern.compile("^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\\.\\.\\.([0-9a-f]+)$");
    private static final Pattern ROW = Pattern.compile("^  0x([0-9a-f]+): (CFA=.*)$");

    @TempDir
    Path tmp;

    private static Path program(String name) {
        Path p = TestPrograms.dir().resolve("rv64-g").resolve(name);
        assertTrue(Files.isRegularFile(p), p + " is missing: run 'make programs'");
        return p;
    }

    private Path patch(Path in) throws IOException {
        return patch(in, NOP);
    }

    /** {@code fragment} at every function entry and at every other block of the {@link #BLOCKS}. */
    private Path patch(Path in, String fragment) throws IOException {
        ElfFile elf = ElfFile.read(in);
        Rewrite rewrite = Rewrite.of(elf).insertAtEntries(fragment, fragment.equals(NOP) ? "nop" : "nops", BranchTarget.INSERTED);
        String base = in.getFileName().toString().replaceAll("\\..*", "");
        for (String n : BLOCKS.get(base)) {
            for (long a : InsertTest.blockStarts(elf, elf.function(n).orElseThrow())) {
                if (a != elf.function(n).orElseThrow().address()) {
                    rewrite.insert(new Insertion(a, fragment, BranchTarget.INSERTED));
                }
            }
        }
        return PatchFixtures.write(tmp, in.getFileName() + ".out", rewrite.run().bytes());
    }

    /** Every moved output address with the input address the BAT maps it to (inserted code: the instruction it precedes). */
    private static long[][] movedAddresses(ElfFile out) {
        BatTables bat = BatTables.read(out);
        Map<Long, Long> oldEntry = new HashMap<>();
        for (BatColdFragment c : bat.coldFragments()) {
            oldEntry.put(c.parentAddress(), c.address());
        }
        List<long[]> pairs = new ArrayList<>();
        for (BatFunction f : bat.functions()) {
            BatMap m = f.map();
            long input = oldEntry.get(f.address());
            for (int i = 0; i < m.size(); i++) {
                pairs.add(new long[] {f.address() + m.outputOffset(i), input + m.inputOffset(i)});
            }
        }
        return pairs.toArray(new long[0][]);
    }

    private static List<String> addr2line(Path binary, long[][] pairs, int column) {
        List<String> cmd = new ArrayList<>(List.of(Tools.require("riscv64-linux-gnu-addr2line"), "-e", binary.toString()));
        for (long[] p : pairs) {
            cmd.add("0x" + Long.toHexString(p[column]));
        }
        Tools.Result r = Tools.run(cmd, "", 300);
        assertEquals(0, r.exitCode(), r.stderr());
        return Arrays.asList(r.stdout().split("\n"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"loops.dwarf5", "loops.dwarf4", "fragment_calls.dwarf5", "fragment_calls.dwarf4",
            "exceptions.dwarf5", "exceptions.dwarf4", "loops.strict4", "loops.novt", "units.dwarf5", "units.dwarf4",
            "loops.clang", "fragment_calls.clang", "units.clang"})
    void addr2lineGivesTheInputLineForEveryMovedAddress(String name) throws IOException {
        Path in = program(name);
        Path out = patch(in);
        long[][] pairs = movedAddresses(ElfFile.read(out));
        List<String> before = addr2line(in, pairs, 1);
        List<String> after = addr2line(out, pairs, 0);
        assertEquals(pairs.length, after.size());
        int withLines = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < pairs.length; i++) {
            if (before.get(i).startsWith("??") || before.get(i).endsWith(":?")) {
                continue; // glibc's code: no line information in the input either
            }
            withLines++;
            if (!before.get(i).equals(after.get(i))) {
                wrong.add("0x" + Long.toHexString(pairs[i][0]) + " " + after.get(i) + " but input 0x"
                        + Long.toHexString(pairs[i][1]) + " " + before.get(i));
            }
        }
        assertTrue(withLines >= 50, name + ": only " + withLines + " moved addresses with line information");
        assertTrue(wrong.isEmpty(), name + ": " + wrong.size() + " of " + withLines + " differ, e.g. "
                + wrong.subList(0, Math.min(5, wrong.size())));
        PatchFixtures.assertSameRun(in, out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"loops.dwarf5", "loops.dwarf4", "exceptions.dwarf5"})
    void gdbFindsLinesAndBreakpointsInTheMovedCode(String name) throws IOException {
        Path in = program(name);
        Path out = patch(in);
        ElfFile input = ElfFile.read(in);
        ElfFile output = ElfFile.read(out);
        Section newText = output.section(NewSection.NAME).orElseThrow();
        Function main = input.function("main").orElseThrow();
        long newMain = output.function("main").orElseThrow().address();
        assertTrue(newText.contains(newMain));
        String gdb = Tools.require("gdb-multiarch");
        Pattern line = Pattern.compile("Line (\\d+) of \"([^\"]+)\"");
        Tools.Result before = Tools.run(List.of(gdb, "-batch", "-ex", "info line *0x" + Long.toHexString(main.address()), in.toString()), "", 120);
        Matcher m = line.matcher(before.stdout());
        assertTrue(m.find(), before.stdout() + before.stderr());
        Tools.Result after = Tools.run(List.of(gdb, "-batch", "-ex", "info line *0x" + Long.toHexString(newMain),
                "-ex", "break " + Path.of(m.group(2)).getFileName() + ":" + m.group(1), out.toString()), "", 120);
        Matcher n = line.matcher(after.stdout());
        assertTrue(n.find(), after.stdout() + after.stderr());
        assertEquals(m.group(0), n.group(0), "gdb's line of main's new entry");
        Matcher at = Pattern.compile("Breakpoint 1 at 0x([0-9a-f]+): (file .*, line " + m.group(1)
                + "\\.|\\S+:" + m.group(1) + "\\. \\(\\d+ locations\\))").matcher(after.stdout());
        assertTrue(at.find(), after.stdout() + after.stderr());
        // gdb names the first location: several when the line's code is in several places (all moved here).
        assertTrue(newText.contains(Long.parseLong(at.group(1), 16)), "the breakpoint is in the moved code: " + after.stdout());
    }

    @ParameterizedTest
    @ValueSource(strings = {"loops.strict4", "loops.novt", "fragment_calls.strict4", "fragment_calls.novt",
            "exceptions.strict4", "exceptions.novt", "units.strict4", "units.novt", "loops.clang", "fragment_calls.clang", "units.clang"})
    void llvmDwarfdumpVerifiesNoNewErrors(String name) throws IOException {
        Path in = program(name);
        Path out = patch(in);
        String dwarfdump = Tools.require("llvm-dwarfdump-22");
        Set<String> before = errors(Tools.run(List.of(dwarfdump, "--verify", in.toString()), "", 300));
        Tools.Result after = Tools.run(List.of(dwarfdump, "--verify", out.toString()), "", 300);
        Set<String> added = errors(after);
        added.removeAll(before);
        assertTrue(added.isEmpty(), name + ": new errors " + added + "\n" + after.stdout());
        assertTrue(after.stdout().contains("No errors.") || !before.isEmpty(), after.stdout());
        Tools.Result dump = Tools.run(List.of(dwarfdump, "--debug-info", "--debug-line", out.toString()), "", 300);
        assertTrue(dump.exitCode() == 0 && dump.stderr().isBlank(), dump.stderr());
    }

    /**
     * A unit whose code is one range (units_lib.c: DW_AT_low_pc/high_pc) of which only {@code pick}
     * moves: its DIE gets DW_AT_ranges; addresses in place and moved keep their lines.
     */
    @ParameterizedTest
    @ValueSource(strings = {"units.dwarf5", "units.dwarf4", "units.strict4", "units.novt", "units.clang"})
    void aUnitOfOneRangeThatMovedCodeDividesGetsRanges(String name) throws IOException {
        Path in = program(name);
        ElfFile elf = ElfFile.read(in);
        Function pick = elf.function("pick").orElseThrow();
        Rewrite rewrite = Rewrite.of(elf);
        for (long a : InsertTest.blockStarts(elf, pick)) {
            rewrite.insert(new Insertion(a, NOP, BranchTarget.INSERTED));
        }
        Path out = PatchFixtures.write(tmp, name + ".pick", rewrite.run().bytes());
        List<long[]> pairs = new ArrayList<>(Arrays.asList(movedAddresses(ElfFile.read(out))));
        for (String unmoved : List.of("scale", "checksum")) {
            for (long a : PatchFixtures.boundaries(elf, elf.function(unmoved).orElseThrow())) {
                pairs.add(new long[] {a, a});
            }
        }
        long[][] all = pairs.toArray(new long[0][]);
        assertEquals(addr2line(in, all, 1), addr2line(out, all, 0));
        assertTrue(addr2line(out, all, 0).stream().allMatch(l -> l.contains("units_lib.c:")), "every address has its line");
        String dwarfdump = Tools.require("llvm-dwarfdump-22");
        Tools.Result info = Tools.run(List.of(dwarfdump, "--debug-info", out.toString()), "", 120);
        String unitDie = info.stdout().substring(info.stdout().indexOf("units_lib.c\")"));
        unitDie = unitDie.substring(0, unitDie.indexOf("DW_TAG_"));
        assertTrue(unitDie.contains("DW_AT_ranges") && unitDie.contains("DW_AT_low_pc") && !unitDie.contains("DW_AT_high_pc"), unitDie);
        if (!name.endsWith("dwarf5") && !name.endsWith("dwarf4")) { // the builds llvm-dwarfdump-22 can verify (clang's too)
            Tools.Result verify = Tools.run(List.of(dwarfdump, "--verify", out.toString()), "", 300);
            assertTrue(verify.exitCode() == 0 && verify.stdout().contains("No errors."), verify.stdout());
        }
        PatchFixtures.assertSameRun(in, out);
    }

    private static Set<String> errors(Tools.Result r) {
        Set<String> out = new LinkedHashSet<>();
        for (String l : (r.stdout() + "\n" + r.stderr()).split("\n")) {
            if (l.contains("error:") || l.contains("warning:")) {
                out.add(l.replaceAll("0x[0-9a-f]+", "0x?")); // offsets of units may change
            }
        }
        return out;
    }

    /** The DW_OP_addr operands in .debug_info, in section order (llvm-dwarfdump-22's reading). */
    private static List<Long> expressionAddresses(Path binary) {
        String dump = Tools.run("llvm-dwarfdump-22", "--debug-info", binary.toString()).stdout();
        Matcher m = Pattern.compile("DW_OP_addr 0x([0-9a-f]+)").matcher(dump);
        List<Long> out = new ArrayList<>();
        while (m.find()) {
            out.add(Long.parseUnsignedLong(m.group(1), 16));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"fragment_calls.dwarf5", "fragment_calls.dwarf4", "exceptions.dwarf5", "loops.dwarf4"})
    void addressesInsideExpressionsFollowMovedCode(String name) throws IOException {
        Path in = program(name);
        Path out = patch(in);
        ElfFile input = ElfFile.read(in);
        ElfFile output = ElfFile.read(out);
        List<Long> before = expressionAddresses(in);
        List<Long> after = expressionAddresses(out);
        assertEquals(before.size(), after.size(), name + ": the same DW_OP_addr operands");
        int moved = 0;
        for (int i = 0; i < before.size(); i++) {
            long old = before.get(i);
            Function f = input.functionContaining(old).orElse(null);
            Function copy = f == null ? null : output.functions().stream().filter(g -> g.name().equals(f.name())
                    && g.section().name().equals(NewSection.NAME)).findFirst().orElse(null);
            if (copy == null) {
                assertEquals(old, after.get(i), name + ": DW_OP_addr 0x" + Long.toHexString(old) + " (no moved code) is unchanged");
                continue;
            }
            moved++;
            long now = after.get(i);
            assertTrue(now >= copy.address() && now < copy.endAddress(), name + ": DW_OP_addr 0x" + Long.toHexString(old) + " in "
                    + f.name() + " names 0x" + Long.toHexString(now) + ", outside its copy");
            if (old == f.address()) {
                assertEquals(copy.address(), now, name + ": DW_OP_addr of " + f.name() + "'s entry names its copy's entry");
            }
        }
        if (name.startsWith("fragment_calls")) {
            assertTrue(moved >= 1, name + ": main's call of pthread_create passes exit_from_thread (DW_AT_call_value)");
        }
        PatchFixtures.assertSameRun(in, out);
    }

    /** The CFA rows of .debug_frame alone (llvm-dwarfdump-22's reading): each FDE's {start, end} and its rows by address. */
    private static Map<long[], java.util.TreeMap<Long, String>> frameRows(Path binary) {
        Tools.Result r = Tools.run(List.of(Tools.require("llvm-dwarfdump-22"), "--debug-frame", binary.toString()), "", 120);
        assertTrue(r.exitCode() == 0 && r.stderr().isBlank(), binary + ": " + r.stderr());
        Map<long[], java.util.TreeMap<Long, String>> out = new java.util.LinkedHashMap<>();
        java.util.TreeMap<Long, String> rows = null;
        boolean debugFrame = false;
        for (String l : r.stdout().split("\n")) {
            if (l.endsWith(" contents:")) { // llvm-dwarfdump-22 --debug-frame dumps .eh_frame too
                debugFrame = l.equals(".debug_frame contents:");
            }
            if (!debugFrame) {
                continue;
            }
            Matcher f = FDE.matcher(l);
            Matcher row = ROW.matcher(l);
            if (f.matches()) {
                rows = new java.util.TreeMap<>();
                out.put(new long[] {Long.parseUnsignedLong(f.group(1), 16), Long.parseUnsignedLong(f.group(2), 16)}, rows);
            } else if (row.matches() && rows != null) {
                rows.put(Long.parseUnsignedLong(row.group(1), 16), row.group(2));
            } else if (l.contains(" CIE")) {
                rows = null;
            }
        }
        return out;
    }

    /** The CFA rule .debug_frame gives at {@code address}, or null when no FDE covers it. */
    private static String rule(Map<long[], java.util.TreeMap<Long, String>> frames, long address) {
        for (Map.Entry<long[], java.util.TreeMap<Long, String>> e : frames.entrySet()) {
            if (address >= e.getKey()[0] && address < e.getKey()[1]) {
                Map.Entry<Long, String> row = e.getValue().floorEntry(address);
                return row == null ? "no row" : row.getValue();
            }
        }
        return null;
    }

    /**
     * Built without unwind tables, the programs' own functions have their call frame information
     * in .debug_frame only: every moved instruction (and every inserted one, which belongs to the
     * instruction it precedes) has, in the output's .debug_frame, the CFA rule its input instruction
     * has in the input's (llvm-dwarfdump-22's row tables); no FDE names an old body; GNU readelf
     * reads the section without a warning. With 100 nops at every block ({@code :100}) the FDEs'
     * advances need longer forms and the records grow.
     */
    @ParameterizedTest
    @ValueSource(strings = {"loops.dframe", "fragment_calls.dframe", "loops.dframe:100"})
    void debugFrameRowsFollowMovedCode(String variant) throws IOException {
        String name = variant.replaceAll(":.*", "");
        Path in = program(name);
        Path out = variant.contains(":") ? patch(in, NOP.repeat(Integer.parseInt(variant.replaceAll(".*:", "")))) : patch(in);
        Map<long[], java.util.TreeMap<Long, String>> before = frameRows(in);
        Map<long[], java.util.TreeMap<Long, String>> after = frameRows(out);
        assertEquals(before.size(), after.size(), name + ": the same FDEs");
        long[][] pairs = movedAddresses(ElfFile.read(out));
        int checked = 0;
        List<String> wrong = new ArrayList<>();
        for (long[] p : pairs) {
            String was = rule(before, p[1]);
            if (was == null) {
                continue; // glibc's code: its FDEs are in .eh_frame (rewritten too, tested elsewhere)
            }
            checked++;
            String now = rule(after, p[0]);
            if (!was.equals(now)) {
                wrong.add("0x" + Long.toHexString(p[0]) + " " + now + " but input 0x" + Long.toHexString(p[1]) + " " + was);
            }
        }
        assertTrue(checked >= 100, name + ": only " + checked + " moved addresses under .debug_frame");
        assertTrue(wrong.isEmpty(), name + ": " + wrong.size() + " of " + checked + " differ, e.g. " + wrong.subList(0, Math.min(5, wrong.size())));
        ElfFile output = ElfFile.read(out);
        for (long[] fde : after.keySet()) {
            Function f = output.functionContaining(fde[0]).orElse(null);
            assertTrue(f == null || !f.name().endsWith(".splice.org") && !f.name().contains(".splice.org."),
                    name + ": an FDE names the old body " + f);
        }
        if (variant.contains(":")) {
            assertTrue(ElfFile.read(out).section(".debug_frame").orElseThrow().size() > ElfFile.read(in).section(".debug_frame").orElseThrow().size(),
                    variant + ": .debug_frame grew");
        }
        Tools.Result readelf = Tools.run(List.of(Tools.require("riscv64-linux-gnu-readelf"), "--debug-dump=frames", out.toString()), "", 120);
        assertTrue(readelf.exitCode() == 0 && !readelf.stderr().contains("arning"), readelf.stderr());
        PatchFixtures.assertSameRun(in, out);
    }

    /**
     * clang-22's DWARF 5 names addresses through .debug_addr: gdb-multiarch gives main's new entry
     * the input's line, and a breakpoint on that line resolves, as in the input, to the same line
     * (clang's line table moves it past the prologue), now in the moved code.
     */
    @ParameterizedTest
    @ValueSource(strings = {"loops.clang", "fragment_calls.clang"})
    void gdbReadsClangOutputsAsTheirInputs(String name) throws IOException {
        Path in = program(name);
        Path out = patch(in);
        ElfFile input = ElfFile.read(in);
        ElfFile output = ElfFile.read(out);
        Section newText = output.section(NewSection.NAME).orElseThrow();
        String gdb = Tools.require("gdb-multiarch");
        Pattern line = Pattern.compile("Line (\\d+) of \"([^\"]+)\"");
        Pattern at = Pattern.compile("Breakpoint 1 at 0x([0-9a-f]+): (file .*, line \\d+\\.)");
        Tools.Result entry = Tools.run(List.of(gdb, "-batch", "-ex", "info line *0x"
                + Long.toHexString(input.function("main").orElseThrow().address()), in.toString()), "", 120);
        Matcher m = line.matcher(entry.stdout());
        assertTrue(m.find(), entry.stdout() + entry.stderr());
        String spec = Path.of(m.group(2)).getFileName() + ":" + m.group(1);
        List<String> found = new ArrayList<>();
        for (Path p : List.of(in, out)) {
            long main = ElfFile.read(p).function("main").orElseThrow().address();
            Tools.Result r = Tools.run(List.of(gdb, "-batch", "-ex", "info line *0x" + Long.toHexString(main), "-ex", "break " + spec,
                    p.toString()), "", 120);
            Matcher l = line.matcher(r.stdout());
            Matcher b = at.matcher(r.stdout());
            assertTrue(l.find() && b.find(), r.stdout() + r.stderr());
            found.add(l.group(0) + " / " + b.group(2));
            if (p == out) {
                assertTrue(newText.contains(Long.parseLong(b.group(1), 16)), "the breakpoint is in the moved code: " + r.stdout());
            }
        }
        assertEquals(found.get(0), found.get(1), name + ": gdb's line of main's entry and of the breakpoint");
    }
}
