package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.listing.Assembler;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutableBuilderTest {
    @TempDir Path tmp;

    private static final long TEXT = 0x11000;
    private static final long DATA = 0x100000;

    /** Writes "hi\n" from .data, adds the .bss word to the exit status (zero-filled), exits 42. */
    private Path build() throws IOException {
        String code = """
                _start:
                    li a0, 1
                    lla a1, msg
                    li a2, 3
                    li a7, 64
                    ecall
                    lla t0, zeroed
                    ld t1, 0(t0)
                    li a0, 42
                    add a0, a0, t1
                    li a7, 93
                    ecall
                """;
        byte[] text = Assembler.assemble(code, "t.s", TEXT, Map.of("msg", DATA, "zeroed", DATA + 8)).bytes();
        byte[] elf = ExecutableBuilder.build(TEXT, TEXT, text, DATA, "hi\n".getBytes(), 4096);
        Path p = tmp.resolve("tiny");
        Files.write(p, elf);
        p.toFile().setExecutable(true);
        return p;
    }

    @Test
    void aFreshExecutableRunsUnderQemu() throws IOException {
        Path p = build();
        Tools.Result r = Tools.run(java.util.List.of("qemu-riscv64", p.toString()), "", 60);
        assertEquals(42, r.exitCode());
        assertEquals("hi\n", r.stdout());
    }

    @Test
    void peerToolsReadItWithoutWarnings() throws IOException {
        Path p = build();
        Tools.Result readelf = Tools.run("llvm-readelf-22", "-h", "-l", "-S", p.toString()).checked("llvm-readelf");
        assertFalse(readelf.stderr().contains("warning"), readelf.stderr());
        assertTrue(readelf.stdout().contains("EXEC"), readelf.stdout());
        assertTrue(readelf.stdout().contains("RISC-V"), readelf.stdout());
        Tools.Result gnu = Tools.run("riscv64-linux-gnu-readelf", "-a", "-W", p.toString()).checked("readelf");
        assertEquals("", gnu.stderr());
        Tools.Result objdump = Tools.run("riscv64-linux-gnu-objdump", "-d", p.toString()).checked("objdump");
        assertTrue(objdump.stdout().contains("ecall"), objdump.stdout());
        assertTrue(objdump.stdout().contains("Disassembly of section .text"), objdump.stdout());
        // Splice's own reader agrees on the segments
        ElfFile elf = ElfFile.read(p);
        assertEquals(2, elf.segments().stream().filter(Segment::isLoad).count());
        assertEquals(TEXT, elf.header().entry());
    }

    @Test
    void badLayoutsAreRefused() {
        byte[] code = new byte[] {0x13, 0, 0, 0};
        assertThrows(IllegalArgumentException.class, () -> ExecutableBuilder.build(TEXT, TEXT, code, TEXT + 4, new byte[0], 0));
        assertThrows(IllegalArgumentException.class, () -> ExecutableBuilder.build(TEXT + 8, TEXT, code, DATA, new byte[0], 0));
        assertThrows(IllegalArgumentException.class, () -> ExecutableBuilder.build(TEXT, TEXT, new byte[0], DATA, new byte[0], 0));
    }
}
