package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clang-22 -O3 -march=rv64gcv program with vectorized loops (tests/programs/vector/vloops.c):
 * Splice disassembles it with no raw words in its loops and reassembles the section byte for byte;
 * a fragment at every basic block of each vectorized function leaves the output identical under
 * qemu-riscv64 -cpu rv64,v=true,vlen=128 (the fragments run once per block entered, the vector loops
 * once per strip).
 */
class VectorProgramTest {
    static final List<String> VECTORIZED = List.of("add_arrays", "saxpy", "sum", "clamp_negative", "widen",
            "every_third", "copy_bytes");

    @TempDir Path tmp;

    private static Tools.Result qemu(Path program) {
        return Tools.run("qemu-riscv64", "-cpu", TestPrograms.VECTOR_CPU, program.toString());
    }

    @Test
    void theVectorLoopsDisassembleAndTheSectionReassemblesByteForByte() throws Exception {
        Path in = TestPrograms.rv64Vector("vloops");
        for (String f : VECTORIZED) {
            Path listing = tmp.resolve(f + ".s");
            assertEquals(Main.OK, Main.execute("disasm", in.toString(), "--function", f, "-o", listing.toString()));
            String text = Files.readString(listing);
            assertFalse(text.contains(".insn"), f + " has raw words:\n" + text);
            assertTrue(Pattern.compile("\\bvsetvli\\b").matcher(text).find(), f + " is vectorized:\n" + text);
        }
        // Every vector instruction llvm-objdump-22 sees in the program, Splice names the same way.
        Tools.Result dump = Tools.run("llvm-objdump-22", "-d", "-M", "no-aliases", "--mattr=+v", "--no-show-raw-insn",
                in.toString());
        assertEquals(0, dump.exitCode(), dump.stderr());
        Path whole = tmp.resolve("vloops.s");
        assertEquals(Main.OK, Main.execute("disasm", in.toString(), "--section", ".text", "-o", whole.toString()));
        String ours = Files.readString(whole);
        Matcher m = Pattern.compile("\\t(v[a-z0-9.]+)\\t").matcher(dump.stdout());
        int vector = 0;
        while (m.find()) {
            vector++;
            assertTrue(ours.contains(m.group(1) + " "), m.group(1) + " is missing from Splice's listing");
        }
        assertTrue(vector >= 40, vector + " vector instructions");
        Path bin = tmp.resolve("text.bin");
        assertEquals(Main.OK, Main.execute("asm", whole.toString(), "-o", bin.toString()));
        Path expected = tmp.resolve("objcopy.bin");
        Tools.run("llvm-objcopy-22", "-O", "binary", "--only-section=.text", in.toString(), expected.toString())
                .checked("objcopy");
        assertArrayEquals(Files.readAllBytes(expected), Files.readAllBytes(bin));
    }

    @Test
    void aFragmentAtEveryBlockOfTheVectorLoopsLeavesTheOutputAlone() throws Exception {
        Path in = TestPrograms.rv64Vector("vloops");
        Tools.Result before = qemu(in);
        assertEquals(0, before.exitCode(), before.stderr());
        Path mark = tmp.resolve("mark.s");
        // Writes one '.' to stderr; saves what it uses (vector state survives the system call).
        Files.writeString(mark, """
                addi sp, sp, -48
                sd a0, 0(sp)
                sd a1, 8(sp)
                sd a2, 16(sp)
                sd a7, 24(sp)
                li a0, 46
                sd a0, 32(sp)
                li a0, 2
                addi a1, sp, 32
                li a2, 1
                li a7, 64
                ecall
                ld a0, 0(sp)
                ld a1, 8(sp)
                ld a2, 16(sp)
                ld a7, 24(sp)
                addi sp, sp, 48
                """);
        List<String> args = new ArrayList<>(List.of("patch", in.toString()));
        for (String f : VECTORIZED) {
            args.addAll(List.of("--at", "block:" + f, mark.toString()));
        }
        Path out = tmp.resolve("marked");
        args.addAll(List.of("-o", out.toString()));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, run.status(), run.err());
        Tools.Result after = qemu(out);
        assertEquals(before.exitCode(), after.exitCode());
        assertEquals(before.stdout(), after.stdout());
        String marks = after.stderr().replaceAll("(?m)^vector version is not specified.*\\R", "");
        assertTrue(marks.matches("\\.+"), "only the fragments write to stderr: " + marks.substring(0, Math.min(200, marks.length())));
        // Every vectorized loop runs many strips (N = 1003 elements, at most 32 per strip at vlen=128).
        assertTrue(marks.length() > 3 * VECTORIZED.size() * 1003 / 32, marks.length() + " fragment runs");
    }
}
