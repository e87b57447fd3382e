package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.testing.LayoutDependentFunctions;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counters in dynamically linked binaries, whose {@code _exit} is in libc.so: the hook through
 * the first {@code .fini_array} word ({@link ExitHook}) writes them on return from {@code main},
 * and a counter at every block of a PIE, of a position-dependent dynamic executable and of a
 * shared library counts what QEMU's single-step log of the input executes.
 */
class DynamicCountersTest {
    private static final String SYSROOT = "/usr/riscv64-linux-gnu";
    private static final String BLOCK_COUNTER = FragmentExamples.read("block-counter.s");

    @TempDir Path tmp;

    @Test
    void aCounterAtEveryBlockOfAPieCountsWhatQemuExecutes() throws Exception {
        countsAsQemu(TestPrograms.rv64Pie("loops"), null, "pie", "77");
    }

    /** libstdc++'s own code in a PIE (about 5,400 blocks), its exception unwinding run by the program. */
    @Test
    void aCounterAtEveryBlockOfAPieCarryingLibstdcxxCountsWhatQemuExecutes() throws Exception {
        countsAsQemu(TestPrograms.rv64PieLibstdcxx("exceptions"), null, "pie-libstdcxx");
    }

    @Test
    void aCounterAtEveryBlockOfAPositionDependentDynamicExecutableCountsWhatQemuExecutes() throws Exception {
        countsAsQemu(TestPrograms.rv64Dyn("loops"), null, "dyn", "77");
    }

    @Test
    void aCounterAtEveryBlockOfASharedLibraryCountsWhatQemuExecutes() throws Exception {
        countsAsQemu(TestPrograms.rv64Shared("libsplice_c.so"), TestPrograms.rv64Shared("clib_main"), "lib", "500");
    }

    @Test
    void theFiniArrayNamesTheHookAndTheRestOfTheArrayIsUnchanged() throws Exception {
        Path in = TestPrograms.rv64Pie("loops");
        Path counters = tmp.resolve("c");
        Path out = PatchFixtures.write(tmp, "loops", Rewrite.of(ElfFile.read(in)).counters(1).counterFile(counters.toString())
                .run().bytes());
        ElfFile before = ElfFile.read(in);
        ElfFile after = ElfFile.read(out);
        Section text = after.section(NewSection.NAME).orElseThrow();
        Section array = after.sections().stream().filter(s -> s.type() == Section.SHT_FINI_ARRAY).findFirst().orElseThrow();
        // In a PIE the word is written by an R_RISCV_RELATIVE: its addend (from readelf) names the stub at the end of the code.
        String relocs = Tools.run("riscv64-linux-gnu-readelf", "-rW", out.toString()).stdout();
        String line = relocs.lines().filter(l -> l.startsWith(String.format("%016x", array.address()))).findFirst().orElseThrow();
        long addend = Long.parseUnsignedLong(line.substring(line.lastIndexOf(' ') + 1), 16);
        assertTrue(addend >= text.address() && addend < text.address() + text.size(), line);
        java.util.Set<String> added = new java.util.TreeSet<>();
        after.functions().forEach(f -> added.add(f.name()));
        before.functions().forEach(f -> added.remove(f.name()));
        assertTrue(added.stream().allMatch(n -> n.startsWith("__splice_")) && added.contains("__splice_exit"),
                "the runtime's helpers are the new functions: " + added);
        Tools.Result run = Tools.run(List.of(Tools.require("qemu-riscv64"), "-L", SYSROOT, out.toString(), "77"), "", 120);
        Tools.Result original = Tools.run(List.of(Tools.require("qemu-riscv64"), "-L", SYSROOT, in.toString(), "77"), "", 120);
        assertEquals(original.stdout(), run.stdout());
        assertEquals(original.exitCode(), run.exitCode());
        assertEquals(8, Files.size(counters), "one counter written at exit");
    }

    /**
     * Puts a counter at every block {@code binary} accepts; runs {@code main} (or {@code binary})
     * with the output and compares each counter with the count QEMU's log gives for its block.
     */
    private void countsAsQemu(Path binary, Path main, String name, String... args) throws Exception {
        ElfFile elf = ElfFile.read(binary);
        Path counterFile = tmp.resolve(name + ".counters");
        Rewrite.Result result = Rewrite.of(elf).counterFile(counterFile.toString())
                .at(PointSpec.parse("block:*"), BLOCK_COUNTER, "block-counter.s", BranchTarget.INSERTED).run();
        List<Long> blocks = result.points().stream().map(Point::address).sorted().toList();
        assertTrue(blocks.size() > 20, name + ": " + blocks.size() + " blocks");
        Path dir = Files.createDirectories(tmp.resolve(name));
        Path out = PatchFixtures.write(dir, binary.getFileName().toString(), result.bytes());
        Path libraries = main == null ? null : binary.getParent();
        Path run = main == null ? out : main;
        Tools.Result before = qemu(main == null ? binary : main, libraries, null, args);
        Tools.Result after = qemu(run, main == null ? null : dir, null, args);
        assertEquals(before.stdout(), after.stdout(), "stdout of " + out);
        assertEquals(before.exitCode(), after.exitCode(), "exit status of " + out + "; stderr " + after.stderr());
        byte[] b = Files.readAllBytes(counterFile);
        long[] counts = new long[b.length / 8];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(counts);
        assertEquals(blocks.size(), counts.length, name + ": one counter per block");
        Executions executed = executions(main == null ? binary : main, libraries, args);
        long base = loadBase(elf, main == null, executed, blocks);
        // functions that run differently on the output read its layout, not its code (LayoutDependentFunctions;
        // and the dynamic unwinder's _Unwind_Find_FDE, which walks the program headers of every loaded
        // object through dl_iterate_phdr: one more PT_LOAD in the output)
        Set<String> skipped = new HashSet<>(LayoutDependentFunctions.NAMES);
        skipped.add("_Unwind_Find_FDE");
        long total = 0;
        int left = 0;
        for (int k = 0; k < blocks.size(); k++) {
            String function = elf.functionContaining(blocks.get(k)).map(Function::name).orElse("");
            if (skipped.contains(function)) {
                left++;
                continue;
            }
            assertEquals(executed.counts().getOrDefault(base + blocks.get(k), 0L), counts[k],
                    name + ": block 0x" + Long.toHexString(blocks.get(k)) + " of " + function);
            total += counts[k];
        }
        assertTrue(total > 100, name + ": " + total + " block executions counted");
        // the PIE carrying libstdc++: 439 of 5,453 blocks lie in the unwinder's layout-dependent functions
        assertTrue(left * 10 < blocks.size(), name + ": " + left + " blocks of layout-dependent functions left out");
    }

    private static boolean isPositionIndependent(ElfFile elf) {
        return elf.header().type() == ElfHeader.ET_DYN; // a PIE or a shared library
    }

    /**
     * Where QEMU loaded the object: 0 for a position-dependent executable; for a PIE, its
     * {@code start_code} in QEMU's page log less its lowest executable segment's address; for a shared
     * library, the page-aligned base at which most of {@code blocks} ran. (Not so for executables: the
     * interpreter's code, which runs more than a small program's own, can outvote the true base of a
     * program whose executed blocks are few among many, as in a PIE that carries libstdc++.)
     */
    private static long loadBase(ElfFile elf, boolean executable, Executions executed, List<Long> blocks) {
        if (!isPositionIndependent(elf)) {
            return 0;
        }
        if (executable) {
            return executed.startCode() - elf.segments().stream().filter(s -> s.isLoad() && s.isExecutable())
                    .mapToLong(Segment::virtualAddress).min().orElseThrow();
        }
        Map<Long, Integer> votes = new HashMap<>();
        for (long pc : executed.counts().keySet()) {
            for (long block : blocks) {
                if (pc > block && ((pc - block) & 0xfff) == 0) {
                    votes.merge(pc - block, 1, Integer::sum);
                }
            }
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    /** How often each pc ran, and where the executable's code was loaded ({@code start_code} of QEMU's page log). */
    private record Executions(Map<Long, Long> counts, long startCode) {}

    /** QEMU's single-step exec log of {@code binary}, with its page log. */
    private static Executions executions(Path binary, Path libraries, String... args) throws IOException {
        Path log = Files.createTempFile("splice-exec", ".log");
        try {
            qemu(binary, libraries, List.of("-singlestep", "-d", "exec,nochain,page", "-D", log.toString()), args);
            Map<Long, Long> out = new HashMap<>();
            long[] startCode = {-1};
            try (Stream<String> lines = Files.lines(log)) {
                lines.forEach(l -> {
                    if (l.startsWith("Trace ")) {
                        String bracket = l.substring(l.indexOf('[') + 1, l.indexOf(']'));
                        out.merge(Long.parseUnsignedLong(bracket.split("/")[1], 16), 1L, Long::sum);
                    } else if (l.startsWith("start_code")) {
                        startCode[0] = Long.parseUnsignedLong(l.substring(l.indexOf("0x") + 2).trim(), 16);
                    }
                });
            }
            assertTrue(startCode[0] >= 0, "QEMU's page log names start_code");
            return new Executions(out, startCode[0]);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static Tools.Result qemu(Path binary, Path libraries, List<String> options, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Tools.require("qemu-riscv64"), "-L", SYSROOT));
        if (libraries != null) {
            cmd.addAll(List.of("-E", "LD_LIBRARY_PATH=" + libraries));
        }
        if (options != null) {
            cmd.addAll(options);
        }
        cmd.add(binary.toString());
        cmd.addAll(List.of(args));
        return Tools.run(cmd, "", 300);
    }
}
