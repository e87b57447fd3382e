package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CSR names against both objdumps: {@code csrrs a0, N, zero} and {@code csrrw a0, N, a1} for every
 * N in 0..4095, disassembled by GNU objdump 2.40 and llvm-objdump-22 (no aliases; llvm with and
 * without the extensions that own CSRs, which name the same numbers). The peers never give one
 * number two names. Splice prints llvm-objdump-22's name wherever it has one, which includes every
 * name both print; GNU's extra names are RV32-only CSRs that llvm-objdump prints as numbers and
 * llvm-mc-22 rejects on RV64, and Splice prints those numbers as numbers too (see docs/isa.md).
 * Every name and every {@code csr-alias} assembles back: Splice's assembler gives llvm-mc-22's
 * bytes, and GNU as 2.40's for the names it knows.
 */
class CsrNamesTest {
    @TempDir
    Path dir;

    @Test
    void everyCsrNumberIsNamedAsLlvmObjdumpNamesIt() throws IOException {
        CsrColumns columns = CsrColumns.read(dir);
        List<String> gnu = columns.gnu();
        List<String> llvm = columns.llvm();
        Isa isa = Isa.rv64();
        int named = 0;
        int both = 0;
        List<String> gnuOnly = new ArrayList<>();
        for (int n = 0; n < 4096; n++) {
            String g = CsrColumns.name(gnu.get(2 * n));
            String l = CsrColumns.name(llvm.get(2 * n));
            assertEquals(g, CsrColumns.name(gnu.get(2 * n + 1)), "GNU's write form of 0x" + Integer.toHexString(n));
            assertEquals(l, CsrColumns.name(llvm.get(2 * n + 1)), "llvm's write form of 0x" + Integer.toHexString(n));
            if (g != null && l != null) {
                assertEquals(g, l, "the peers disagree on CSR 0x" + Integer.toHexString(n) + ": docs/isa.md must say whom Splice follows");
                both++;
            } else if (g != null) {
                gnuOnly.add(g);
            }
            assertEquals(l, isa.csrName(n), "CSR 0x" + Integer.toHexString(n));
            if (l != null) {
                assertEquals(n, isa.csrNumber(l), l);
                named++;
            }
        }
        assertEquals(308, named, "names llvm-objdump-22 prints");
        assertEquals(278, both, "names both llvm-objdump-22 and GNU objdump 2.40 print");
        assertEquals(129, gnuOnly.size(), "names only GNU prints");
        // GNU's extra names stay numbers because llvm-mc-22 rejects each of them on RV64.
        List<String> rv32Only = new ArrayList<>();
        for (String g : gnuOnly) {
            rv32Only.add("csrrs a0, " + g + ", zero");
        }
        Path rv32 = dir.resolve("rv32only.s");
        Files.write(rv32, rv32Only);
        String errors = Tools.run("llvm-mc-22", "-triple=riscv64", "-mattr=" + CsrColumns.CSR_MATTR, "-filetype=obj",
                "-o", dir.resolve("rv32only.o").toString(), rv32.toString()).stderr();
        assertEquals(gnuOnly.size(), errors.lines().filter(e -> e.contains("error:")).count(), errors);
        assertEquals(gnuOnly.size(), errors.lines().filter(e -> e.contains("' is RV32 only")).count(), errors);
    }

    /** Every printed name and every alias: Splice's assembler, llvm-mc-22 and (where it knows the name) GNU as agree. */
    @Test
    void everyNameAndAliasAssemblesAsThePeersAssembleIt() throws IOException, OperandException {
        Isa isa = Isa.rv64();
        Map<String, Integer> names = new TreeMap<>();
        isa.csrNames().forEach((n, name) -> names.put(name, n));
        for (String alias : ALIASES) {
            names.put(alias, isa.csrNumber(alias));
        }
        List<String> lines = new ArrayList<>();
        ByteBuffer splice = ByteBuffer.allocate(8 * names.size()).order(ByteOrder.LITTLE_ENDIAN);
        Opcode csrrs = isa.opcode("csrrs");
        Opcode csrrw = isa.opcode("csrrw");
        for (Map.Entry<String, Integer> e : names.entrySet()) {
            assertTrue(e.getValue() >= 0, e.getKey());
            String read = e.getKey() + ", zero";
            String write = e.getKey() + ", a1";
            lines.add("csrrs a0, " + read);
            lines.add("csrrw a0, " + write);
            splice.putInt(Encoder.assemble(csrrs, "a0, " + read, 0, SymbolResolver.NONE));
            splice.putInt(Encoder.assemble(csrrw, "a0, " + write, 0, SymbolResolver.NONE));
        }
        assertArrayEquals(splice.array(), LlvmPeer.assemble(lines, CsrColumns.CSR_MATTR, dir,
                warning -> warning.contains("is a deprecated alias for")), "llvm-mc-22 (which warns of sbadaddr, mbadaddr, sptbr)");
        // GNU as 2.40 knows the names both objdumps print and the aliases, not llvm's extra 30.
        List<String> llvmOnly = CsrColumns.read(dir).llvmOnly();
        assertEquals(30, llvmOnly.size());
        List<String> gnuLines = new ArrayList<>();
        ByteBuffer gnuExpected = ByteBuffer.allocate(8 * names.size()).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < lines.size(); i++) {
            String name = lines.get(i).split(", ")[1];
            if (!llvmOnly.contains(name)) {
                gnuLines.add(lines.get(i));
                gnuExpected.putInt(splice.getInt(4 * i));
            }
        }
        assertEquals(2 * (names.size() - llvmOnly.size()), gnuLines.size());
        Path s = dir.resolve("gnu.s");
        Path o = dir.resolve("gnu.o");
        Path bin = dir.resolve("gnu.bin");
        Files.write(s, gnuLines);
        Tools.run("riscv64-linux-gnu-as", "-march=rv64gc", "-o", o.toString(), s.toString()).checked("as");
        Tools.run("riscv64-linux-gnu-objcopy", "-O", "binary", "--only-section=.text", o.toString(), bin.toString())
                .checked("objcopy");
        assertArrayEquals(java.util.Arrays.copyOf(gnuExpected.array(), gnuExpected.position()), Files.readAllBytes(bin),
                "GNU as 2.40");
    }

    /** The {@code csr-alias} names of rv64.tbl. */
    private static final List<String> ALIASES = List.of("dscratch", "sbadaddr", "mbadaddr", "sptbr", "mcontrol",
            "mcontrol6", "icount", "itrigger", "etrigger", "tmexttrigger", "textra32", "textra64");
}
