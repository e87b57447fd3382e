package dev.splice.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A C program whose function {@code run} is a computed goto (a table of label addresses, as in
 * interpreters), with a label that ordinary code runs into ({@code op_add}, after the entry code;
 * its block is too big, three calls, for GCC to copy it into the entry), built as a PIE during the
 * test: the table's words are R_RISCV_RELATIVE relocations, whose targets perf2bolt-22 makes
 * secondary entry points of {@code run} (docs/cfg.md).
 */
public final class ComputedGotoPie {
    private ComputedGotoPie() {}

    static final String SOURCE = """
            #include <stdio.h>
            #include <stdlib.h>
            __attribute__((noinline)) long mix(long x) { return x * 2654435761L ^ (x >> 7); }
            __attribute__((noinline)) long run(const unsigned char *code, long acc) {
                static void *const ops[] = {&&op_add, &&op_mul, &&op_end};
                const unsigned char *pc = code;
                acc = mix(acc) + 1;
            op_add:
                acc = mix(acc + 3) ^ mix(acc - 5);
                goto *ops[*pc++];
            op_mul:
                acc *= 5;
                goto *ops[*pc++];
            op_end:
                return acc;
            }
            int main(int argc, char **argv) {
                unsigned char code[64];
                int n = argc > 1 ? atoi(argv[1]) : 40;
                for (int i = 0; i < n && i < 63; i++) code[i] = (unsigned char)(i * 7 % 2);
                code[n < 63 ? n : 63] = 2;
                printf("%ld\\n", run(code, 1));
                return 0;
            }
            """;

    /**
     * Compiles the program with {@code -O2 -fPIE -pie}, with {@code -Wl,--emit-relocs} if asked.
     *
     * @param dir where the source and the binary go
     * @param name the binary's file name
     * @param emitRelocs whether to keep the static relocations
     * @return the binary
     * @throws IOException if the source cannot be written
     */
    public static Path build(Path dir, String name, boolean emitRelocs) throws IOException {
        Path source = dir.resolve("cgoto-ft.c");
        Files.writeString(source, SOURCE);
        Path binary = dir.resolve(name);
        List<String> gcc = new ArrayList<>(List.of(Tools.require("riscv64-linux-gnu-gcc"), "-O2", "-g0", "-fPIE", "-pie"));
        if (emitRelocs) {
            gcc.add("-Wl,--emit-relocs");
        }
        gcc.addAll(List.of("-o", binary.toString(), source.toString()));
        Tools.run(gcc, "", 120).checked("gcc");
        return binary;
    }
}
