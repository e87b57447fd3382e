package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program with Zbc instructions (tests/programs/rv64-ext/zbc_mix.c, -march=rv64gc_zbc): disasm
 * decodes them because its Tag_RISCV_arch names zbc, lists them raw under {@code --target rv64gc},
 * and patch moves the function (a fragment at every block) with output identical under QEMU.
 */
class ScalarExtensionsProgramTest {
    @TempDir
    Path dir;

    private static Path program() {
        Path p = TestPrograms.dir().resolve("rv64-ext/zbc_mix");
        assertTrue(Files.isRegularFile(p), p + " is missing: run make programs");
        return p;
    }

    private String disasm(String... args) throws IOException {
        Path out = dir.resolve("out.s");
        List<String> all = new java.util.ArrayList<>(List.of("disasm"));
        all.addAll(List.of(args));
        all.addAll(List.of("-o", out.toString()));
        assertEquals(Main.OK, Main.execute(all.toArray(new String[0])));
        return Files.readString(out);
    }

    @Test
    void theAttributeEnablesZbcAndTargetCanDisableIt() throws IOException {
        String listing = disasm(program().toString(), "--function", "mix");
        assertTrue(listing.startsWith(".target rv64gc_zbc\n"), listing);
        assertTrue(listing.contains(" clmul ") && listing.contains(" clmulh "), listing);
        assertFalse(listing.contains(".insn"), listing);
        String without = disasm(program().toString(), "--function", "mix", "--target", "rv64gc");
        assertFalse(without.contains("clmul"), without);
        assertEquals(2, without.lines().filter(l -> l.strip().startsWith(".insn 4, 0x")).count(), without);
        Path listingFile = dir.resolve("mix.s");
        Files.writeString(listingFile, without);
        Path bin = dir.resolve("mix.bin");
        assertEquals(Main.OK, Main.execute("asm", listingFile.toString(), "-o", bin.toString()));
        Path zbc = dir.resolve("zbc.s");
        Files.writeString(zbc, listing);
        Path bin2 = dir.resolve("zbc.bin");
        assertEquals(Main.OK, Main.execute("asm", zbc.toString(), "-o", bin2.toString()));
        assertArrayEquals(Files.readAllBytes(bin2), Files.readAllBytes(bin));
    }

    @Test
    void aFunctionWithZbcMovesAndRunsTheSame() throws IOException {
        Path fragment = dir.resolve("nop.s");
        Files.writeString(fragment, "addi zero, zero, 0\n");
        Path out = dir.resolve("zbc_mix.patched");
        assertEquals(Main.OK, Main.execute("patch", program().toString(), "--at", "block:mix", fragment.toString(),
                "-o", out.toString()));
        Tools.Result before = Tools.run(List.of("qemu-riscv64", program().toString()), null, 60);
        Tools.Result after = Tools.run(List.of("qemu-riscv64", out.toString()), null, 60);
        assertEquals(0, before.exitCode());
        assertEquals(0, after.exitCode(), after.stderr());
        assertEquals(before.stdout(), after.stdout());
        String moved = disasm(out.toString(), "--section", ".splice.text");
        assertEquals(2, moved.lines().filter(l -> l.strip().startsWith("clmul")).count(), moved);
    }
}
