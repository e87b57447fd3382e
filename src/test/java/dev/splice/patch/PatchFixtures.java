package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.Decoder;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Shared helpers: instruction boundaries, writing and running rewritten binaries under qemu-riscv64. */
final class PatchFixtures {
    private PatchFixtures() {}

    /** Instruction start addresses of a function (linear sweep by the length encoding). */
    static List<Long> boundaries(ElfFile elf, Function f) {
        byte[] b = elf.contents(f.section());
        int at = (int) (f.address() - f.section().address());
        int end = (int) (at + f.size());
        List<Long> out = new ArrayList<>();
        while (at < end) {
            out.add(f.section().address() + at);
            at += Decoder.length((b[at] & 0xff) | (b[at + 1] & 0xff) << 8);
        }
        return out;
    }

    static Path write(Path dir, String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        assertTrue(p.toFile().setExecutable(true));
        return p;
    }

    static Tools.Result qemu(Path binary, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("qemu-riscv64");
        cmd.add(binary.toString());
        cmd.addAll(List.of(args));
        return Tools.run(cmd, "", 120);
    }

    /** Same stdout, stderr and exit status as the original. */
    static void assertSameRun(Path original, Path rewritten, String... args) {
        Tools.Result before = qemu(original, args);
        Tools.Result after = qemu(rewritten, args);
        assertEquals(before.stdout(), after.stdout(), "stdout of " + rewritten);
        assertEquals(before.exitCode(), after.exitCode(), "exit status of " + rewritten + "; stderr " + after.stderr());
        assertEquals(before.stderr(), after.stderr());
    }
}
