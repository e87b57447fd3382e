package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.testing.BranchSites;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Binaries BOLT has not rewritten (no .note.bolt_bat): perf2bolt-22 then writes the profile in the
 * binary's own coordinates, every function through its CFG, without the "boltedcollection" header.
 * Splice writes the same file (line order aside), or refuses where it would not.
 */
class PlainBinaryTranslationTest {
    static Stream<Arguments> binaries() {
        return Stream.of(
                // x86-64 static glibc and libstdc++ without relocations (BOLT's non-relocation mode)
                Arguments.of("x86_64-static-exceptions", TestPrograms.x86_64Static("exceptions"), 3000),
                // x86-64 dynamic, linked with --emit-relocs (relocation mode, strict in perf2bolt)
                Arguments.of("x86_64-exceptions-relocs", TestPrograms.x86_64("exceptions"), 100),
                // x86-64 position independent, with --emit-relocs (8-byte .plt.got entries)
                Arguments.of("x86_64-pie-loops", TestPrograms.x86_64Pie("loops"), 40),
                // RISC-V static glibc without relocations
                Arguments.of("rv64-loops", TestPrograms.rv64("loops"), 3000),
                // RISC-V position independent, dynamic: PLT entries (callee@PLT)
                Arguments.of("rv64-pie-loops", TestPrograms.rv64Pie("loops"), 30),
                // RISC-V static glibc and libstdc++ with --emit-relocs: labels from data relocations
                // (jump tables), and perf2bolt's strict mode for indirect jumps
                Arguments.of("rv64-exceptions-relocs", TestPrograms.rv64("exceptions.relocs"), 3000));
    }

    /** B, T, F and f records over the binary's real direct branch sites (llvm-objdump-22's). */
    private static String randomProfile(Path binary, long seed, int records) {
        List<BranchSites.Site> sites = BranchSites.of(binary).sites();
        Random random = new Random(seed);
        StringBuilder pa = new StringBuilder();
        for (int i = 0; i < records; i++) {
            BranchSites.Site s = sites.get(random.nextInt(sites.size()));
            BranchSites.Site next = sites.get(random.nextInt(sites.size()));
            int count = 1 + random.nextInt(100);
            switch (random.nextInt(4)) {
                case 0 -> pa.append(String.format("B %x %x %d %d%n", s.address(), s.target(), count, random.nextInt(3)));
                case 1 -> pa.append(String.format("T %x %x %x %d%n", s.address(), s.target(), next.address(), count));
                case 2 -> pa.append(String.format("F %x %x %d%n", s.target(), s.address(), count));
                default -> pa.append(String.format("f %x %x %d%n", s.target(), s.address(), count));
            }
        }
        return pa.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("binaries")
    void sameProfileAsPerf2bolt(String id, Path binary, int minLines, @TempDir Path dir) throws IOException {
        String pa = randomProfile(binary, id.hashCode(), 6000);
        List<String> theirs = perf2bolt(binary, pa, id);
        List<String> ours = splice(binary, pa, dir, false);
        assertTrue(theirs.size() >= minLines, id + ": perf2bolt wrote only " + theirs.size() + " lines");
        assertTrue(theirs.stream().noneMatch(l -> l.equals("boltedcollection")), "perf2bolt wrote boltedcollection");
        Perf2boltAgreementTest.assertSame(new java.util.TreeSet<>(theirs), new java.util.TreeSet<>(ours));
        assertEquals(theirs.size(), ours.size(), "the header lines too");
    }

    /**
     * Traces after returns (T records whose branch is a return, into the instruction after a call,
     * to a random later address): the trace starts at the call's block, and one that ends at its
     * function's end is no trace (BOLT's getBasicBlockContainingOffset holds no block there; 3 of
     * 1,612 lines differed on the static x86-64 build before).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("binaries")
    void returnTracesAsPerf2bolt(String id, Path binary, int minLines, @TempDir Path dir) throws IOException {
        List<BranchSites.Instruction> all = BranchSites.of(binary).instructions();
        List<Long> returns = new java.util.ArrayList<>();
        List<Long> afterCalls = new java.util.ArrayList<>();
        for (int i = 0; i + 1 < all.size(); i++) {
            String m = all.get(i).mnemonic();
            if (m.startsWith("ret")) {
                returns.add(all.get(i).address());
            } else if (m.startsWith("call") || m.equals("jal") || m.equals("jalr")) {
                afterCalls.add(all.get(i + 1).address());
            }
        }
        Random random = new Random(id.hashCode());
        StringBuilder pa = new StringBuilder();
        for (int i = 0; i < 5000 && !returns.isEmpty() && !afterCalls.isEmpty(); i++) {
            long from = afterCalls.get(random.nextInt(afterCalls.size()));
            pa.append(String.format("T %x %x %x %d%n", returns.get(random.nextInt(returns.size())), from,
                    from + 2L * (1 + random.nextInt(20)), 1 + random.nextInt(50)));
        }
        assertSameAsPerf2bolt(binary, pa.toString(), id + "-returns", dir, minLines / 100);
    }

    /**
     * Branch records from inside an instruction whose byte there reads as a return (x86-64 c3/c2):
     * perf2bolt decodes a function it disassembled only at its instruction starts, so they are
     * branches, not returns (26 of 11,180 lines of a fuzzed profile differed before).
     */
    @Test
    void returnBytesInsideInstructionsAreNoReturns(@TempDir Path dir) throws IOException {
        Path binary = TestPrograms.x86_64Static("exceptions");
        dev.splice.elf.ElfFile elf = dev.splice.elf.ElfFile.read(binary);
        dev.splice.elf.Section text = elf.section(".text").orElseThrow();
        byte[] code = elf.contents(text);
        BranchSites sites = BranchSites.of(binary);
        List<BranchSites.Instruction> all = sites.instructions();
        List<Long> targets = sites.sites().stream().map(BranchSites.Site::target).toList();
        Random random = new Random(9);
        StringBuilder pa = new StringBuilder();
        int inside = 0;
        for (int i = 0; i + 1 < all.size() && inside < 400; i++) {
            long start = all.get(i).address();
            long next = all.get(i + 1).address();
            for (long a = start + 1; a < next && a - text.address() < code.length && a >= text.address(); a++) {
                int b = code[(int) (a - text.address())] & 0xff;
                if ((b == 0xc3 || b == 0xc2) && random.nextInt(4) == 0) {
                    pa.append(String.format("B %x %x %d 0%n", a, targets.get(random.nextInt(targets.size())), 1 + random.nextInt(9)));
                    inside++;
                }
            }
        }
        assertTrue(inside > 100, "only " + inside + " return bytes inside instructions");
        assertSameAsPerf2bolt(binary, pa.toString(), "inside-returns", dir, 101);
    }

    /**
     * x86-64 conditional tail calls (a jcc to another function): BOLT's isCall includes tail calls,
     * so a trace entered from outside at the block after one starts at its block, as after a call
     * (found by fuzzing: `__memcpy_avx_unaligned_rtm` 0x15 -> 0x1b).
     */
    @Test
    void tracesAfterConditionalTailCallsAsPerf2bolt(@TempDir Path dir) throws IOException {
        Path binary = TestPrograms.x86_64Static("exceptions");
        BranchSites sites = BranchSites.of(binary);
        java.util.Map<Long, String> functionAt = new java.util.HashMap<>();
        List<BranchSites.Instruction> all = sites.instructions();
        java.util.Map<Long, Long> next = new java.util.HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            functionAt.put(all.get(i).address(), all.get(i).function());
            if (i + 1 < all.size()) {
                next.put(all.get(i).address(), all.get(i + 1).address());
            }
        }
        StringBuilder pa = new StringBuilder();
        int n = 0;
        for (BranchSites.Site s : sites.sites()) {
            String here = functionAt.get(s.address());
            if (s.mnemonic().startsWith("j") && !s.mnemonic().startsWith("jmp") && here != null
                    && !here.equals(functionAt.get(s.target())) && next.containsKey(s.address())) {
                long after = next.get(s.address());
                pa.append(String.format("f %x %x %d%n", after, next.getOrDefault(after, after), 1 + n % 7));
                n++;
            }
        }
        assertTrue(n > 20, "only " + n + " conditional tail calls");
        assertSameAsPerf2bolt(binary, pa.toString(), "ctc", dir, 11);
    }

    /** Samples without branch stacks (perf2bolt --ba): the no_lbr profile, header included. */
    @Test
    void samplesWithoutBranchStacks(@TempDir Path dir) throws IOException {
        Path binary = TestPrograms.x86_64Static("exceptions");
        StringBuilder pa = new StringBuilder();
        Random random = new Random(5);
        for (BranchSites.Site s : BranchSites.of(binary).sites()) {
            if (random.nextInt(8) == 0) {
                pa.append(String.format("S %x %d%n", random.nextBoolean() ? s.address() : s.target(), 1 + random.nextInt(9)));
            }
        }
        List<String> theirs = perf2bolt(binary, pa.toString(), "ba", "--ba");
        List<String> ours = splice(binary, pa.toString(), dir, true);
        assertEquals("no_lbr", theirs.stream().filter(l -> l.startsWith("no_lbr")).findFirst().orElse(""));
        assertTrue(theirs.size() > 500, "perf2bolt wrote only " + theirs.size() + " lines");
        assertEquals(new java.util.TreeSet<>(theirs), new java.util.TreeSet<>(ours));
        assertEquals(theirs.size(), ours.size());
    }

    /**
     * RISC-V "jump past end" (tests/bat/jump_past_end.S): BOLT replaces a direct branch or call to
     * its function's end, padding following, with a nop, and perf2bolt-22 then drops branch records
     * from it (x86-64 keeps them), the fall-through part of a T record staying. Splice does the same.
     */
    @Test
    void branchesFromARiscVJumpPastEndAreDropped(@TempDir Path dir) throws IOException {
        Path binary = dir.resolve("jump_past_end");
        Tools.run("riscv64-linux-gnu-gcc", "-nostdlib", "-static", "-Wl,--emit-relocs", "-o", binary.toString(),
                TestPrograms.root().resolve("tests/bat/jump_past_end.S").toString()).checked("riscv64-linux-gnu-gcc");
        dev.splice.elf.ElfFile elf = dev.splice.elf.ElfFile.read(binary);
        long f = elf.symbol("f").orElseThrow().value();
        long g = elf.symbol("g").orElseThrow().value();
        String pa = String.format("B %x %x 10 0%nB %x %x 11 0%nB %x %x 12 0%nT %x %x %x 13%nB %x %x 14 0%nB %x %x 15 0%n",
                f, f + 8, f, g, g + 4, g + 14, g + 4, g + 8, g + 12, f + 4, g, g + 8, f);
        Path in = dir.resolve("jpe.pa");
        Files.writeString(in, pa);
        Tools.Result r = Tools.run(List.of("perf2bolt-22", "-v=1", "-p", in.toString(), "--pa", "-o",
                dir.resolve("perf2bolt.fdata").toString(), binary.toString()), null, 300).checked("perf2bolt-22");
        assertTrue(r.stdout().contains("jump past end detected") || r.stderr().contains("jump past end detected"),
                "no jump past end in the test program");
        List<String> theirs = nonEmpty(Files.readAllLines(dir.resolve("perf2bolt.fdata")));
        List<String> ours = splice(binary, pa, dir, false);
        assertEquals(new java.util.TreeSet<>(theirs), new java.util.TreeSet<>(ours));
        assertTrue(theirs.stream().noneMatch(l -> l.startsWith("1 f 0 ") || l.startsWith("1 g 4 ")), "perf2bolt kept one: " + theirs);
        assertTrue(theirs.stream().anyMatch(l -> l.startsWith("1 f 4 ")) && theirs.stream().anyMatch(l -> l.startsWith("1 g 8 ")),
                "the other records are kept: " + theirs);
    }

    @Test
    void refusedWhereSpliceWouldDiffer(@TempDir Path dir) throws IOException {
        Path pa = dir.resolve("p.pa");
        Files.writeString(pa, "B 10000 10004 1 0\n");
        Path out = dir.resolve("out.fdata");
        BadInputException yaml = assertThrows(BadInputException.class, () -> ProfileTranslation.translate(TestPrograms.rv64("loops"), pa, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(false, false, null, null)).write(out, ProfileTranslation.OutputFormat.YAML));
        assertTrue(yaml.getMessage().contains("YAML"), yaml.getMessage());
        BadInputException input = assertThrows(BadInputException.class, () -> ProfileTranslation.translate(TestPrograms.rv64("loops"), pa, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(false, false, TestPrograms.rv64("loops"), null)).write(out, ProfileTranslation.OutputFormat.FDATA));
        assertTrue(input.getMessage().contains("--input"), input.getMessage());
        // A stripped binary, which perf2bolt-22 refuses too.
        Path stripped = dir.resolve("stripped");
        Tools.run("strip", "-o", stripped.toString(), TestPrograms.x86_64("exceptions").toString()).checked("strip");
        BadInputException strip = assertThrows(BadInputException.class, () -> ProfileTranslation.translate(stripped, pa, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(false, false, null, null)).write(out, ProfileTranslation.OutputFormat.FDATA));
        assertTrue(strip.getMessage().contains("stripped"), strip.getMessage());
        assertTrue(Tools.run(List.of("perf2bolt-22", "-p", pa.toString(), "--pa", "-o", out.toString(), stripped.toString()),
                null, 60).exitCode() != 0, "perf2bolt-22 translated a stripped binary");
        Files.deleteIfExists(out);
        // Another machine (an x86-64 build relabelled AArch64): its code is not decoded as x86-64.
        byte[] bytes = Files.readAllBytes(TestPrograms.x86_64("exceptions"));
        bytes[18] = (byte) 183; // e_machine = EM_AARCH64
        bytes[19] = 0;
        Path aarch64 = dir.resolve("aarch64.elf");
        Files.write(aarch64, bytes);
        BadInputException machine = assertThrows(BadInputException.class, () -> ProfileTranslation.translate(aarch64, pa, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(false, false, null, null)).write(out, ProfileTranslation.OutputFormat.FDATA));
        assertTrue(machine.getMessage().contains("machine 183"), machine.getMessage());
        assertTrue(Files.notExists(out), "nothing written when refused");
    }

    private static List<String> perf2bolt(Path binary, String pa, String tag, String... extra) throws IOException {
        return nonEmpty(Files.readAllLines(Perf2boltAgreementTest.perf2boltFile(binary, pa, "plain-" + tag, extra)));
    }

    private static List<String> splice(Path binary, String pa, Path dir, boolean basicSamples) throws IOException {
        Path in = dir.resolve("splice.pa");
        Path out = dir.resolve("splice.fdata");
        Files.writeString(in, pa);
        ProfileTranslation.translate(binary, in, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(basicSamples, false, null, null)).write(out, ProfileTranslation.OutputFormat.FDATA);
        return nonEmpty(Files.readAllLines(out));
    }

    /** Splice's file equals perf2bolt-22's for the profile (as sets of lines), which has at least {@code minLines}. */
    private static void assertSameAsPerf2bolt(Path binary, String pa, String tag, Path dir, int minLines) throws IOException {
        List<String> theirs = perf2bolt(binary, pa, tag);
        List<String> ours = splice(binary, pa, dir, false);
        assertTrue(theirs.size() >= minLines, tag + ": perf2bolt wrote only " + theirs.size() + " lines");
        Perf2boltAgreementTest.assertSame(new java.util.TreeSet<>(theirs), new java.util.TreeSet<>(ours));
    }

    private static List<String> nonEmpty(List<String> lines) {
        return lines.stream().filter(l -> !l.isBlank()).toList();
    }
}
