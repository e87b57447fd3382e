package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.PluginFixtures;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --runtime FILE.o}: a C helper compiled by {@code riscv64-linux-gnu-gcc -O2 -c}
 * (tests/programs/runtime/histogram.c, built by the Makefile) linked into the output, called from
 * a fragment at every block of two functions with the block's address, and writing its histogram
 * from its exit function; checked against QEMU's single-step log of the input, and again after
 * llvm-bolt-22 rewrote the output. Objects Splice cannot link exactly are refused with the file,
 * section, offset and symbol.
 */
class RuntimeObjectTest {
    @TempDir Path tmp;

    /** Saves every caller-saved integer register, calls the C helper with the point's address, restores. */
    private static final String HISTOGRAM_CALL = histogramCall();

    private static String histogramCall() {
        String[] saved = {"ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"};
        StringBuilder s = new StringBuilder("addi sp, sp, -128\n");
        for (int i = 0; i < saved.length; i++) {
            s.append("sd ").append(saved[i]).append(", ").append(8 * i).append("(sp)\n");
        }
        s.append("li a0, {addr}\ncall hist_record\n");
        for (int i = 0; i < saved.length; i++) {
            s.append("ld ").append(saved[i]).append(", ").append(8 * i).append("(sp)\n");
        }
        return s.append("addi sp, sp, 128\n").toString();
    }

    private static Path histogramObject() {
        Path o = TestPrograms.dir().resolve("rv64-runtime/histogram.o");
        assertTrue(Files.exists(o), o + " is missing: run make programs");
        return o;
    }

    /** The histogram file: address to count, after checking its tag and entry count. */
    private static Map<Long, Long> histogram(Path file) throws Exception {
        assertTrue(Files.exists(file), "no histogram written to " + file);
        byte[] b = Files.readAllBytes(file);
        long[] w = new long[b.length / 8];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(w);
        assertEquals(0x3130303054534948L, w[0], "tag HIST0001");
        assertEquals(w.length, 2 + 2 * w[1]);
        Map<Long, Long> out = new TreeMap<>();
        for (int i = 2; i < w.length; i += 2) {
            out.put(w[i], w[i + 1]);
        }
        return out;
    }

    @Test
    void aCHelperCalledAtEveryBlockCountsWhatQemuExecutesAlsoAfterBolt() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        Path file = tmp.resolve("histogram");
        Rewrite r = Rewrite.of(elf).runtime(histogramObject()).counterFile(file.toString());
        List<Long> points = new java.util.ArrayList<>();
        for (String name : List.of("hot_loop", "classify")) {
            Function f = elf.function(name).orElseThrow();
            for (long a : PatchFixtures.boundaries(elf, f)) {
                if (Rewrite.of(elf).insertionPoints(f).contains(a) && points.size() < 40) {
                    points.add(a);
                    r.insert(new Insertion(a, HISTOGRAM_CALL, "histogram-call.s", BranchTarget.INSERTED));
                }
            }
        }
        Path out = PatchFixtures.write(tmp, "out", r.run().bytes());
        PatchFixtures.assertSameRun(in, out, "200");
        Files.deleteIfExists(file);
        PatchFixtures.qemu(out, "200");
        Map<Long, Long> got = histogram(file);

        Map<Long, Long> executed = new HashMap<>();
        for (long pc : PluginFixtures.singleStepPcs(in, "200")) {
            executed.merge(pc, 1L, Long::sum);
        }
        Map<Long, Long> expected = new TreeMap<>();
        for (long a : points) {
            if (executed.containsKey(a)) {
                expected.put(a, executed.get(a));
            }
        }
        assertTrue(expected.size() >= 4, expected.toString());
        assertEquals(expected, got);

        Path bolted = tmp.resolve("out.bolt");
        Tools.run(List.of(Tools.require("llvm-bolt-22"), out.toString(), "-o", bolted.toString(), "--reorder-blocks=ext-tsp"),
                null, 300).checked("llvm-bolt-22");
        PatchFixtures.assertSameRun(in, bolted, "200");
        Files.deleteIfExists(file);
        PatchFixtures.qemu(bolted, "200");
        assertEquals(got, histogram(file));
    }

    /** Compiles {@code source} with riscv64-linux-gnu-gcc -O2 -c and the extra flags. */
    private Path compile(String name, String source, String... flags) throws Exception {
        Path c = tmp.resolve(name + ".c");
        Files.writeString(c, source);
        Path o = tmp.resolve(name + ".o");
        List<String> command = new java.util.ArrayList<>(List.of(Tools.require("riscv64-linux-gnu-gcc"), "-O2", "-c"));
        command.addAll(List.of(flags));
        command.addAll(List.of(c.toString(), "-o", o.toString()));
        Tools.run(command, null, 60).checked("gcc");
        return o;
    }

    private PatchException refusal(Path object) {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        long at = elf.function("hot_loop").orElseThrow().address();
        return assertThrows(PatchException.class, () -> Rewrite.of(elf).runtime(object)
                .insert(new Insertion(at, HISTOGRAM_CALL.replace("hist_record", "f"), "call.s", BranchTarget.INSERTED)).run());
    }

    @Test
    void whatCannotBeLinkedExactlyIsRefusedWithItsPlace() throws Exception {
        PatchException undefined = refusal(compile("undefined", "extern void nowhere(void);\nvoid f(void) { nowhere(); }\n",
                "-fno-pic"));
        assertTrue(undefined.getMessage().matches("(?s).*undefined\\.o: section \\.text\\+0x[0-9a-f]+ \\(symbol 'nowhere'\\): "
                + "undefined symbol 'nowhere'.*"), undefined.getMessage());

        PatchException got = refusal(compile("got", "extern long g;\nlong f(void) { return g; }\n", "-fPIC"));
        assertTrue(got.getMessage().contains("got.o: section .text+0x") && got.getMessage().contains("R_RISCV_GOT_HI20")
                && got.getMessage().contains("(symbol 'g')") && got.getMessage().contains("GOT-relative"), got.getMessage());

        PatchException tls = refusal(compile("tls", "__thread long x;\nvoid f(void) { x++; }\n", "-fno-pic"));
        assertTrue(tls.getMessage().contains("tls.o: ") && tls.getMessage().contains("thread-local"), tls.getMessage());

        PatchException data = refusal(compile("data", "long v = 5;\nvoid f(void) { v++; }\n", "-fno-pic"));
        assertTrue(data.getMessage().contains("data.o: section .") && data.getMessage().contains("initialised writable data"),
                data.getMessage());

        PatchException notObject = assertThrows(PatchException.class,
                () -> Rewrite.of(ElfFile.read(TestPrograms.rv64("loops.relocs"))).runtime(TestPrograms.rv64("loops")));
        assertTrue(notObject.getMessage().contains("loops: is not a RISC-V64 relocatable object"), notObject.getMessage());
        assertEquals(PatchException.Reason.UNSUPPORTED_BINARY, notObject.reason());
        assertEquals(PatchException.Reason.UNSUPPORTED_RELOCATION, undefined.reason());
    }
}
