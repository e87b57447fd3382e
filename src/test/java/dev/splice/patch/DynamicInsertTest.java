package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Insertion into dynamically linked binaries (PIE, position-dependent dynamic executables, shared
 * libraries, all linked with --emit-relocs): the outputs run under qemu-riscv64 with the RISC-V
 * sysroot exactly as the inputs do (a patched library loaded by the unpatched executable and by a
 * patched one, C++ exceptions thrown across it), and readelf, llvm-readelf, objdump and
 * llvm-dwarfdump report nothing on them they did not report on the inputs.
 */
class DynamicInsertTest {
    private static final String SYSROOT = "/usr/riscv64-linux-gnu";
    private static final String NOP = "addi x0, x0, 0\n";
    private static final String PROBE = "addi sp, sp, -16\nsd t0, 8(sp)\nrdcycle t0\nld t0, 8(sp)\naddi sp, sp, 16\n";
    private static final List<String> LOOPS = List.of("hot_loop", "classify", "fib", "apply_all", "main");
    private static final List<String> WITH_LSDA = List.of("_Z8validatei", "_Z7processRKSt6vectorIiSaIiEE", "main");
    /** With the constructor and destructor (init_array, fini_array) and the computed goto's labels (R_RISCV_RELATIVE). */
    private static final List<String> CLIB = List.of("lib_checksum", "lib_classify", "lib_operation", "lib_dispatch", "lib_init",
            "lib_fini");
    private static final List<String> CXXLIB = List.of("_Z12lib_validatei", "_Z11lib_processRKSt6vectorIiSaIiEE");

    @TempDir Path tmp;

    @Test
    void pieExecutables() throws Exception {
        Path loops = TestPrograms.rv64Pie("loops");
        runsAsBefore(loops, insert(loops, "blocks", LOOPS, false, PROBE, BranchTarget.INSERTED), null, "77");
        runsAsBefore(loops, insert(loops, "original", LOOPS, false, PROBE, BranchTarget.ORIGINAL), null, "77");
        runsAsBefore(loops, insert(loops, "every", LOOPS, true, NOP, BranchTarget.INSERTED), null, "300");
        Path exceptions = TestPrograms.rv64Pie("exceptions");
        runsAsBefore(exceptions, insert(exceptions, "blocks", WITH_LSDA, false, PROBE, BranchTarget.INSERTED), null);
        runsAsBefore(exceptions, insert(exceptions, "every", WITH_LSDA, true, NOP, BranchTarget.INSERTED), null);
    }

    @Test
    void positionDependentDynamicExecutables() throws Exception {
        Path loops = TestPrograms.rv64Dyn("loops");
        runsAsBefore(loops, insert(loops, "blocks", LOOPS, false, PROBE, BranchTarget.INSERTED), null, "77");
        runsAsBefore(loops, insert(loops, "every", LOOPS, true, NOP, BranchTarget.INSERTED), null, "300");
        Path exceptions = TestPrograms.rv64Dyn("exceptions");
        runsAsBefore(exceptions, insert(exceptions, "every", WITH_LSDA, true, NOP, BranchTarget.INSERTED), null);
    }

    @Test
    void cSharedLibraryLoadedByAnUnpatchedAndAPatchedExecutable() throws Exception {
        Path lib = TestPrograms.rv64Shared("libsplice_c.so");
        Path main = TestPrograms.rv64Shared("clib_main");
        for (boolean every : new boolean[] {false, true}) {
            Path dir = Files.createDirectories(tmp.resolve(every ? "every" : "blocks"));
            Path patched = dir.resolve("libsplice_c.so");
            Files.write(patched, insertAt(lib, CLIB, every, every ? NOP : PROBE, BranchTarget.INSERTED));
            assertToolsAgree(lib, patched);
            assertDynamicSymbolsFollow(lib, patched, CLIB);
            assertRelativeRelocationsFollow(lib, patched, every ? NOP : PROBE);
            sameRun(main, main, TestPrograms.rv64SharedDir(), dir, "500");
            Path patchedMain = PatchFixtures.write(dir, "clib_main", insertAt(main, List.of("main"), every, NOP, BranchTarget.INSERTED));
            assertToolsAgree(main, patchedMain);
            sameRun(main, patchedMain, TestPrograms.rv64SharedDir(), dir, "500");
        }
    }

    /**
     * A shared library patched at every block, with counters, keeps its program header table in
     * place (its notes and .gnu.hash move into the new code's segment, DT_GNU_HASH follows), so GNU
     * strip and objcopy --strip-all give libraries that load and count alike. Before, the table moved
     * to a PT_LOAD of its own, which BFD repacks: "ELF load command address/offset not page-aligned".
     */
    @Test
    void aPatchedSharedLibraryStripsToALibraryThatLoads() throws Exception {
        Path lib = TestPrograms.rv64Shared("libsplice_c.so");
        Path main = TestPrograms.rv64Shared("clib_main");
        Path counts = tmp.resolve("lib.counters");
        Path dir = Files.createDirectories(tmp.resolve("patched"));
        Path patched = dir.resolve("libsplice_c.so");
        Files.write(patched, Rewrite.open(lib).at(PointSpec.parse("block:*"), FragmentExamples.read("block-counter.s"), "counter",
                BranchTarget.INSERTED).counterFile(counts.toString()).run().bytes());
        assertToolsAgree(lib, patched);
        ElfFile out = ElfFile.read(patched);
        assertEquals(ElfFile.read(lib).header().phoff(), out.header().phoff(), "the table stays in place");
        Section hash = out.section(".gnu.hash").orElseThrow();
        assertTrue(Tools.run("readelf", "-d", patched.toString()).checked("readelf").stdout()
                .matches("(?s).*\\(GNU_HASH\\)\\s+0x0*" + Long.toHexString(hash.address()) + "\\b.*"), "DT_GNU_HASH names the moved table");
        sameRun(main, main, TestPrograms.rv64SharedDir(), dir, "500");
        long[] expected = FragmentTemplateTest.slots(counts);
        assertTrue(java.util.Arrays.stream(expected).sum() > 0, "the library's blocks counted");
        for (String[] strip : new String[][] {{"riscv64-linux-gnu-strip", "-o", "OUT", "IN"},
                {"riscv64-linux-gnu-objcopy", "--strip-all", "IN", "OUT"}}) {
            Path stripped = Files.createDirectories(tmp.resolve(Path.of(strip[0]).getFileName() + "")).resolve("libsplice_c.so");
            List<String> cmd = new ArrayList<>();
            for (String a : strip) {
                cmd.add(a.equals("IN") ? patched.toString() : a.equals("OUT") ? stripped.toString() : a);
            }
            Tools.run(cmd, "", 60).checked(strip[0]);
            Files.delete(counts);
            sameRun(main, main, TestPrograms.rv64SharedDir(), stripped.getParent(), "500");
            assertArrayEquals(expected, FragmentTemplateTest.slots(counts), strip[0] + ": the same counts");
        }
    }

    @Test
    void cPlusPlusExceptionsAcrossAPatchedSharedLibraryAreCaught() throws Exception {
        Path lib = TestPrograms.rv64Shared("libsplice_cxx.so");
        Path main = TestPrograms.rv64Shared("cxxlib_main");
        Path dir = Files.createDirectories(tmp.resolve("cxx"));
        Path patched = dir.resolve("libsplice_cxx.so");
        Files.write(patched, insertAt(lib, CXXLIB, true, PROBE, BranchTarget.INSERTED));
        assertToolsAgree(lib, patched);
        assertDynamicSymbolsFollow(lib, patched, CXXLIB);
        Tools.Result run = sameRun(main, main, TestPrograms.rv64SharedDir(), dir);
        assertTrue(run.stdout().startsWith("caught=") && run.exitCode() > 0, run.stdout());
        Path patchedMain = PatchFixtures.write(dir, "cxxlib_main", insertAt(main, List.of("main"), false, PROBE, BranchTarget.INSERTED));
        assertToolsAgree(main, patchedMain);
        sameRun(main, patchedMain, TestPrograms.rv64SharedDir(), dir);
    }

    /**
     * Long fragments at every instruction: the FDEs outgrow their places and continue in
     * .splice.eh_frame; the dynamic unwinder finds them through .eh_frame_hdr's table (PT_GNU_EH_FRAME),
     * in a PIE and in a shared library whose exceptions the executable catches.
     */
    @Test
    void grownFdesAreFoundThroughTheEhFrameHeader() throws Exception {
        String longFragment = NOP.repeat(100);
        Path exceptions = TestPrograms.rv64Pie("exceptions");
        Path pie = insert(exceptions, "grown", WITH_LSDA, true, longFragment, BranchTarget.INSERTED);
        runsAsBefore(exceptions, pie, null);
        EhFrames.assertGrew(exceptions, pie, tmp, WITH_LSDA);
        Path lib = TestPrograms.rv64Shared("libsplice_cxx.so");
        Path dir = Files.createDirectories(tmp.resolve("grown"));
        Path patched = dir.resolve("libsplice_cxx.so");
        Files.write(patched, insertAt(lib, CXXLIB, true, longFragment, BranchTarget.INSERTED));
        assertToolsAgree(lib, patched);
        EhFrames.assertGrew(lib, patched, dir, CXXLIB);
        Path main = TestPrograms.rv64Shared("cxxlib_main");
        sameRun(main, main, TestPrograms.rv64SharedDir(), dir);
    }

    /**
     * Equal-length replacement in a shared library, then insertion into the replaced function: the
     * executable behaves as with the library compiled from the source changed the same way (case 0
     * of lib_classify returns 12 instead of 11).
     */
    @Test
    void replacementInASharedLibraryMatchesTheChangedSource() throws Exception {
        Path lib = TestPrograms.rv64Shared("libsplice_c.so");
        ElfFile elf = ElfFile.read(lib);
        Function classify = elf.function("lib_classify").orElseThrow();
        String listing = ReplaceTest.listing(elf, classify);
        String changed = listing.replaceFirst("c\\.li a0, 11\\b", "c.li a0, 12");
        assertNotEquals(listing, changed);
        Path source = TestPrograms.root().resolve("tests/programs/shared");
        Path rebuilt = Files.createDirectories(tmp.resolve("rebuilt"));
        Files.copy(source.resolve("clib.h"), rebuilt.resolve("clib.h"));
        Files.writeString(rebuilt.resolve("clib.c"), Files.readString(source.resolve("clib.c"))
                .replace("case 0: return 11;", "case 0: return 12;"));
        Tools.run(Tools.require("riscv64-linux-gnu-gcc"), "-O2", "-g0", "-fPIC", "-shared", "-Wl,--emit-relocs", "-o",
                rebuilt.resolve("libsplice_c.so").toString(), rebuilt.resolve("clib.c").toString()).checked("gcc");
        Path dir = Files.createDirectories(tmp.resolve("replaced"));
        Path patched = dir.resolve("libsplice_c.so");
        Rewrite.open(lib).replace(new Replacement("lib_classify", changed, "lib_classify.s"))
                .insert(new Insertion(classify.address(), PROBE, BranchTarget.INSERTED)).run().writeTo(patched);
        assertToolsAgree(lib, patched);
        Path main = TestPrograms.rv64Shared("clib_main");
        Tools.Result run = sameRun(main, main, rebuilt, dir, "700");
        assertNotEquals(qemu(main, TestPrograms.rv64SharedDir(), "700").stdout(), run.stdout());
    }

    /**
     * The BAT of a PIE and of a shared library output: a sample on every instruction of the moved
     * functions (found in the copy by skipping the probes' bytes) translates to the same profile as
     * the samples on the input's instructions; a probe's samples count for the instruction after it.
     */
    @Test
    void samplesOnDynamicOutputsTranslateBackThroughTheBat() {
        // Functions without calls out of the moved code: a call to a PLT stub grows to auipc + jalr, which
        // this instruction-by-instruction walk of the copy does not follow.
        checkBat(TestPrograms.rv64Pie("loops"), List.of("hot_loop", "classify", "fib"));
        checkBat(TestPrograms.rv64Shared("libsplice_c.so"), List.of("lib_checksum", "lib_classify", "lib_operation"));
    }

    private static void checkBat(Path in, List<String> functions) {
        ElfFile elf = ElfFile.read(in);
        ElfFile out = ElfFile.parse(insertAt(in, functions, false, PROBE, BranchTarget.INSERTED), "rewritten");
        byte[] probe = dev.splice.listing.Assembler.assemble(PROBE, "probe").bytes();
        int probeLength = (int) PROBE.lines().count();
        StringBuilder onOutput = new StringBuilder();
        StringBuilder onInput = new StringBuilder();
        for (String name : functions) {
            List<Long> original = PatchFixtures.boundaries(elf, elf.function(name).orElseThrow());
            Function after = out.function(name).orElseThrow();
            List<Long> copy = PatchFixtures.boundaries(out, after);
            byte[] code = out.contents(after.section());
            int k = 0;
            for (int c = 0; c < copy.size() && k < original.size(); c++) {
                int at = (int) (copy.get(c) - after.section().address());
                long weight = 1 + k;
                if (at + probe.length <= code.length && java.util.Arrays.equals(java.util.Arrays.copyOfRange(code, at, at + probe.length), probe)) {
                    for (int j = 0; j < probeLength; j++) {
                        onOutput.append(String.format("S %x %d%n", copy.get(c + j), 1000 + weight));
                    }
                    onInput.append(String.format("S %x %d%n", original.get(k), probeLength * (1000 + weight)));
                    c += probeLength - 1;
                    continue;
                }
                onOutput.append(String.format("S %x %d%n", copy.get(c), weight));
                onInput.append(String.format("S %x %d%n", original.get(k), weight));
                k++;
            }
            assertEquals(original.size(), k, name + ": every instruction found in the copy");
        }
        var expected = translate(elf, onInput).samples();
        assertTrue(expected.size() > 50, in + ": " + expected.size() + " samples");
        assertEquals(expected, translate(out, onOutput).samples(), in.toString());
    }

    private static dev.splice.profile.Fdata translate(ElfFile binary, CharSequence profile) {
        return dev.splice.profile.ProfileTranslation.translate(binary, new java.io.StringReader(profile.toString()),
                dev.splice.profile.ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new dev.splice.profile.ProfileTranslation.Options(true, false, null, null)).fdata();
    }

    @Test
    void bulkInsertionIntoEveryDynamicBinary() throws Exception {
        for (Path in : List.of(TestPrograms.rv64Pie("loops"), TestPrograms.rv64Pie("exceptions"), TestPrograms.rv64Dyn("loops"),
                TestPrograms.rv64Dyn("exceptions"))) {
            Rewrite.Result r = Rewrite.open(in).insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED).run();
            assertTrue(r.inserted().size() >= 5, in + ": " + r.inserted());
            Path out = tmp.resolve(in.getParent().getFileName() + "-" + in.getFileName() + ".entries");
            r.writeTo(out);
            runsAsBefore(in, out, null);
        }
    }

    @Test
    void withoutEmitRelocsTheRefusalSaysWhatToRelink() throws Exception {
        Path plain = tmp.resolve("loops.pie");
        Tools.run(Tools.require("riscv64-linux-gnu-gcc"), "-O2", "-fpie", "-pie", "-o", plain.toString(),
                TestPrograms.root().resolve("tests/programs/loops.c").toString()).checked("gcc");
        ElfFile elf = ElfFile.read(plain);
        long main = elf.function("main").orElseThrow().address();
        PatchException one = assertThrows(PatchException.class,
                () -> Inserter.insert(elf, List.of(new Insertion(main, NOP, BranchTarget.INSERTED))));
        PatchException bulk = assertThrows(PatchException.class,
                () -> Rewrite.of(elf).insertAtEntries(NOP, "nop.s", BranchTarget.INSERTED).run());
        for (PatchException e : List.of(one, bulk)) {
            assertEquals(PatchException.Reason.NO_RELOCATIONS, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("relink with -Wl,--emit-relocs") && e.getMessage().contains(".rela.dyn"), e.getMessage());
        }
        assertEquals(one.getMessage(), bulk.getMessage());
    }

    /** Inserts {@code fragment} at every block start (or instruction) of {@code functions} of {@code in}. */
    private static byte[] insertAt(Path in, List<String> functions, boolean every, String fragment, BranchTarget policy) {
        ElfFile elf = ElfFile.read(in);
        List<Insertion> ins = new ArrayList<>();
        for (String name : functions) {
            Function f = elf.function(name).orElseThrow(() -> new AssertionError("no " + name + " in " + in));
            List<Long> allowed = Rewrite.of(elf).insertionPoints(f);
            List<Long> points = every ? allowed : InsertTest.blockStarts(elf, f);
            assertTrue(every || allowed.containsAll(points), name + ": a block start is refused");
            for (long a : points) {
                ins.add(new Insertion(a, fragment, policy));
            }
        }
        return Inserter.insert(elf, ins);
    }

    private Path insert(Path in, String kind, List<String> functions, boolean every, String fragment, BranchTarget policy)
            throws Exception {
        byte[] out = insertAt(in, functions, every, fragment, policy);
        assertArrayEquals(out, insertAt(in, functions, every, fragment, policy), "deterministic");
        Path p = PatchFixtures.write(tmp, in.getParent().getFileName() + "-" + in.getFileName() + "." + kind, out);
        assertToolsAgree(in, p);
        return p;
    }

    private static void runsAsBefore(Path in, Path out, Path libraries, String... args) {
        sameRun(in, out, libraries, libraries, args);
    }

    /** {@code in} with libraries from {@code inLibraries} and {@code out} with {@code outLibraries} behave alike. */
    private static Tools.Result sameRun(Path in, Path out, Path inLibraries, Path outLibraries, String... args) {
        Tools.Result before = qemu(in, inLibraries, args);
        Tools.Result after = qemu(out, outLibraries, args);
        assertEquals(before.stdout(), after.stdout(), "stdout of " + out);
        assertEquals(before.exitCode(), after.exitCode(), "exit status of " + out + "; stderr " + after.stderr());
        assertEquals(before.stderr(), after.stderr());
        assertNotEquals("", before.stdout());
        return after;
    }

    private static Tools.Result qemu(Path binary, Path libraries, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Tools.require("qemu-riscv64"), "-L", SYSROOT));
        if (libraries != null) {
            cmd.addAll(List.of("-E", "LD_LIBRARY_PATH=" + libraries));
        }
        cmd.add(binary.toString());
        cmd.addAll(List.of(args));
        return Tools.run(cmd, "", 120);
    }

    /**
     * Every peer tool exits as on the input and warns of nothing it did not warn of on the input; every
     * section symbol names its section's address (sections that moved for the program header table too).
     */
    private static void assertToolsAgree(Path in, Path out) {
        ElfFile elf = ElfFile.read(out);
        for (Section table : elf.sections()) {
            if (table.type() == Section.SHT_SYMTAB || table.type() == Section.SHT_DYNSYM) {
                for (Symbol s : elf.symbols(table)) {
                    if (s.type() == Symbol.STT_SECTION && s.isDefinedInSection() && elf.section(s.sectionIndex()).isAllocated()) {
                        assertEquals(elf.section(s.sectionIndex()).address(), s.value(), out + ": " + table.name() + " symbol of "
                                + elf.section(s.sectionIndex()).name());
                    }
                }
            }
        }
        for (String[] tool : new String[][] {{"readelf", "-a", "-W"}, {"llvm-readelf-22", "-a"}, {"riscv64-linux-gnu-objdump", "-d"},
                {"llvm-dwarfdump-22", "--verify"}}) {
            Tools.Result before = tool(tool, in);
            Tools.Result after = tool(tool, out);
            assertEquals(before.exitCode(), after.exitCode(), tool[0] + " " + out + ": " + after.stderr());
            Set<String> old = warnings(before.stderr(), in);
            for (String w : warnings(after.stderr(), out)) {
                assertTrue(old.contains(w), tool[0] + " warns on " + out + " only: " + w);
            }
        }
    }

    private static Tools.Result tool(String[] tool, Path file) {
        List<String> cmd = new ArrayList<>(List.of(tool));
        cmd.set(0, Tools.require(tool[0]));
        cmd.add(file.toString());
        return Tools.run(cmd, "", 120);
    }

    private static Set<String> warnings(String stderr, Path file) {
        Set<String> out = new TreeSet<>();
        for (String line : stderr.split("\n")) {
            if (!line.isBlank()) {
                out.add(line.replace(file.toString(), "FILE"));
            }
        }
        return out;
    }

    /**
     * Every R_RISCV_RELATIVE addend that changed named moved code in the input (a function or label)
     * and names the fragment before that instruction's new address (or the instruction) in the output.
     */
    private static void assertRelativeRelocationsFollow(Path in, Path out, String fragment) {
        ElfFile original = ElfFile.read(in);
        ElfFile after = ElfFile.read(out);
        List<dev.splice.elf.Relocation> old = relaDyn(original);
        List<dev.splice.elf.Relocation> now = relaDyn(after);
        assertEquals(old.size(), now.size());
        int moved = 0;
        for (int i = 0; i < old.size(); i++) {
            dev.splice.elf.Relocation o = old.get(i);
            dev.splice.elf.Relocation n = now.get(i);
            assertEquals(o.offset(), n.offset());
            assertEquals(o.info(), n.info());
            if (o.type() != dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RELATIVE || o.addend() == n.addend()) {
                continue;
            }
            moved++;
            // The label's instruction moved; the reference goes to the fragment before it (policy INSERTED).
            String label = labelAt(original, o.addend());
            long instruction = after.symbols().stream().filter(s -> s.name().equals(label)).findFirst().orElseThrow().value();
            long before = instruction - n.addend();
            assertTrue(before >= 0 && before <= 4L * fragment.lines().count(), "R_RISCV_RELATIVE at 0x" + Long.toHexString(o.offset())
                    + " names 0x" + Long.toHexString(n.addend()) + ", its label " + label + " is at 0x" + Long.toHexString(instruction));
            assertEquals(NewSection.NAME, after.sectionContaining(n.addend()).orElseThrow().name());
        }
        assertTrue(moved > 0, "no R_RISCV_RELATIVE named moved code");
    }

    private static List<dev.splice.elf.Relocation> relaDyn(ElfFile elf) {
        return elf.relocations().stream().filter(rs -> rs.section().name().equals(".rela.dyn")).findFirst().orElseThrow().relocations();
    }

    /** The name of a function or label symbol at {@code address} of .symtab, one whose name is unique. */
    private static String labelAt(ElfFile elf, long address) {
        java.util.Map<String, Long> counts = elf.symbols().stream().collect(
                java.util.stream.Collectors.groupingBy(Symbol::name, java.util.stream.Collectors.counting()));
        return elf.symbols().stream().filter(s -> s.value() == address && s.type() != Symbol.STT_SECTION && !s.name().isEmpty()
                && counts.get(s.name()) == 1).map(Symbol::name).sorted().findFirst().orElseThrow(
                        () -> new AssertionError("no symbol at 0x" + Long.toHexString(address) + " in " + elf.name()));
    }

    /**
     * The exported symbols of the moved functions name their new code in .dynsym (what PLT calls
     * and dlsym resolve to), as .symtab does; names, hash tables and versions are the input's bytes.
     */
    private static void assertDynamicSymbolsFollow(Path in, Path out, List<String> functions) {
        ElfFile before = ElfFile.read(in);
        ElfFile after = ElfFile.read(out);
        int exported = 0;
        for (String name : functions) {
            Symbol dyn = after.dynamicSymbols().stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
            if (dyn == null) {
                continue; // a local function
            }
            exported++;
            Function moved = after.function(name).orElseThrow();
            assertEquals(moved.address(), dyn.value(), name);
            assertEquals(moved.size(), dyn.size(), name);
            assertEquals(NewSection.NAME, after.section(dyn.sectionIndex()).name(), name);
            assertNotEquals(before.function(name).orElseThrow().address(), dyn.value(), name);
        }
        assertTrue(exported > 0, "none of " + functions + " is exported");
        for (String section : List.of(".gnu.hash", ".dynstr", ".gnu.version", ".gnu.version_r", ".plt")) {
            assertArrayEquals(before.contents(before.section(section).orElseThrow()),
                    after.contents(after.section(section).orElseThrow()), section);
        }
    }
}
