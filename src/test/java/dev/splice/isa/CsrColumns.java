package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The CSR operand GNU objdump 2.40 and llvm-objdump-22 print for {@code csrrs a0, N, zero} and
 * {@code csrrw a0, N, a1} (entries 2N and 2N+1), for every N in 0..4095; a number where the peer
 * has no name.
 *
 * @param gnu GNU objdump's operands
 * @param llvm llvm-objdump's operands (the same with and without the CSR extensions' -mattr)
 */
record CsrColumns(List<String> gnu, List<String> llvm) {
    /** The extensions whose CSRs llvm-mc-22 knows (a name's extension does not change its printing). */
    static final String CSR_MATTR = "+zicsr,+f,+v,+zkr,+zcmt,+experimental-zicfiss,+h,+sstc,+smaia,+ssaia,"
            + "+smstateen,+ssstateen,+smcsrind,+sscsrind,+smctr,+ssctr,+smcdeleg,+ssqosid,+smcntrpmf,+smrnmi,"
            + "+sdext,+sdtrig,+smepmp";

    /** {@return the names llvm-objdump prints for numbers GNU prints as numbers} */
    List<String> llvmOnly() {
        List<String> names = new ArrayList<>();
        for (int n = 0; n < 4096; n++) {
            if (name(gnu.get(2 * n)) == null && name(llvm.get(2 * n)) != null) {
                names.add(llvm.get(2 * n));
            }
        }
        return names;
    }

    /**
     * {@return the numbers llvm-objdump names and GNU objdump does not: GNU as 2.40 does not know
     * their names} Read once per test JVM.
     */
    static synchronized Set<Integer> llvmOnlyNumbers() {
        if (llvmOnlyNumbers == null) {
            Path dir = LlvmPeer.tempDir();
            CsrColumns columns;
            try {
                columns = read(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                LlvmPeer.deleteTree(dir);
            }
            Set<Integer> numbers = new HashSet<>();
            for (int n = 0; n < 4096; n++) {
                if (name(columns.gnu.get(2 * n)) == null && name(columns.llvm.get(2 * n)) != null) {
                    numbers.add(n);
                }
            }
            llvmOnlyNumbers = Set.copyOf(numbers);
        }
        return llvmOnlyNumbers;
    }

    private static Set<Integer> llvmOnlyNumbers;

    /** Disassembles every CSR number's read and write form with both objdumps, in {@code dir}. */
    static CsrColumns read(Path dir) throws IOException {
        StringBuilder source = new StringBuilder();
        for (int n = 0; n < 4096; n++) {
            source.append(String.format(".insn 4, 0x%08x%n", n << 20 | 2 << 12 | 10 << 7 | 0x73)); // csrrs a0, n, zero
            source.append(String.format(".insn 4, 0x%08x%n", n << 20 | 11 << 15 | 1 << 12 | 10 << 7 | 0x73)); // csrrw a0, n, a1
        }
        Path s = dir.resolve("csr.s");
        Path o = dir.resolve("csr.o");
        Files.writeString(s, source);
        Tools.run("riscv64-linux-gnu-as", "-march=rv64gc", "-o", o.toString(), s.toString()).checked("as");
        List<String> gnu = csrColumn(Tools.run("riscv64-linux-gnu-objdump", "-d", "-M", "no-aliases", o.toString())
                .checked("objdump").stdout());
        List<String> llvm = csrColumn(Tools.run("llvm-objdump-22", "-d", "-M", "no-aliases", o.toString())
                .checked("llvm-objdump").stdout());
        List<String> llvmWithExtensions = csrColumn(Tools.run("llvm-objdump-22", "-d", "-M", "no-aliases",
                "--mattr=" + CSR_MATTR, o.toString()).checked("llvm-objdump").stdout());
        assertEquals(2 * 4096, gnu.size());
        assertEquals(2 * 4096, llvm.size());
        assertEquals(llvm, llvmWithExtensions, "llvm-objdump-22 names CSRs whatever the extensions");
        return new CsrColumns(gnu, llvm);
    }

    /** {@return the operand if it is a name, null if it is a number} */
    static String name(String operand) {
        return operand.startsWith("0x") ? null : operand;
    }

    /** The CSR operand of each "csrrs a0, CSR, zero" and "csrrw a0, CSR, a1" line. */
    private static List<String> csrColumn(String disassembly) {
        List<String> names = new ArrayList<>();
        for (String line : disassembly.split("\n")) {
            int at = Math.max(line.indexOf("csrrs\t"), line.indexOf("csrrw\t"));
            if (at >= 0) {
                String[] ops = line.substring(at + 6).trim().split(",");
                names.add(ops[1].trim());
            }
        }
        return names;
    }
}
