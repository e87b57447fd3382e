package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CSR names against both objdumps: {@code csrrs a0, N, zero} for every N in 0..4095,
 * disassembled by GNU objdump 2.40 and llvm-objdump-22 (no aliases). The peers never give one
 * number two names. Where both name it, Splice gives the same name, and the name assembles back
 * to the number; where only one does, Splice prints the number as the other one does (the name
 * would not assemble with that peer: GNU's extra names are RV32-only CSRs that llvm-mc-22
 * rejects on RV64, LLVM's extra names are unknown to GNU as 2.40; see docs/isa.md).
 */
class CsrNamesTest {
    @TempDir
    Path dir;

    @Test
    void everyCsrNumberIsNamedAsThePeersNameIt() throws IOException {
        StringBuilder source = new StringBuilder();
        for (int n = 0; n < 4096; n++) {
            source.append(String.format(".insn 4, 0x%08x%n", n << 20 | 2 << 12 | 10 << 7 | 0x73));
        }
        Path s = dir.resolve("csr.s");
        Path o = dir.resolve("csr.o");
        Files.writeString(s, source);
        Tools.run("riscv64-linux-gnu-as", "-march=rv64gc", "-o", o.toString(), s.toString()).checked("as");
        List<String> gnu = csrColumn(Tools.run("riscv64-linux-gnu-objdump", "-d", "-M", "no-aliases", o.toString())
                .checked("objdump").stdout(), ",");
        List<String> llvm = csrColumn(Tools.run("llvm-objdump-22", "-d", "-M", "no-aliases", o.toString())
                .checked("llvm-objdump").stdout(), ", ");
        assertEquals(4096, gnu.size());
        assertEquals(4096, llvm.size());
        Isa isa = Isa.rv64();
        int named = 0;
        int oneSided = 0;
        for (int n = 0; n < 4096; n++) {
            String g = gnu.get(n).startsWith("0x") ? null : gnu.get(n);
            String l = llvm.get(n).startsWith("0x") ? null : llvm.get(n);
            if (g != null && l != null) {
                assertEquals(g, l, "the peers disagree on CSR 0x" + Integer.toHexString(n) + ": docs/isa.md must say whom Splice follows");
            }
            String expected = g != null && l != null ? g : null;
            assertEquals(expected, isa.csrName(n), "CSR 0x" + Integer.toHexString(n));
            if (g == null ^ l == null) {
                oneSided++;
            }
            if (expected != null) {
                assertEquals(n, isa.csrNumber(expected), expected);
                named++;
            }
        }
        assertEquals(278, named, "names both llvm-objdump-22 and GNU objdump 2.40 print");
        assertEquals(159, oneSided, "numbers only one of them names (129 by GNU, 30 by LLVM)");
    }

    /** The CSR operand of each "csrrs a0, CSR, zero" line. */
    private static List<String> csrColumn(String disassembly, String separator) {
        List<String> names = new ArrayList<>();
        for (String line : disassembly.split("\n")) {
            int at = line.indexOf("csrrs\t");
            if (at >= 0) {
                String[] ops = line.substring(at + 6).trim().split(separator.trim());
                names.add(ops[1].trim());
            }
        }
        return names;
    }
}
