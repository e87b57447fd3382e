package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Insertion under qemu-riscv64: the rewritten programs behave exactly as the originals. */
class InsertTest {
    @TempDir Path tmp;

    private static final String NOP = "addi x0, x0, 0\n";
    /** Saves and restores what it uses: a stack slot and t0 (reads the cycle counter into t0). */
    private static final String PROBE = "addi sp, sp, -16\nsd t0, 8(sp)\nrdcycle t0\nld t0, 8(sp)\naddi sp, sp, 16\n";

    /** Basic block starts of a function: its entry, the targets of its branches, the instructions after branches and jumps. */
    static List<Long> blockStarts(ElfFile elf, Function f) {
        Decoder d = Isa.rv64().decoder(Extension.all());
        byte[] section = elf.contents(f.section());
        TreeSet<Long> out = new TreeSet<>();
        out.add(f.address());
        for (long a : PatchFixtures.boundaries(elf, f)) {
            int at = (int) (a - f.section().address());
            int parcel = (section[at] & 0xff) | (section[at + 1] & 0xff) << 8;
            int size = Decoder.length(parcel);
            int bits = size == 2 ? parcel : parcel | (section[at + 2] & 0xff) << 16 | (section[at + 3] & 0xff) << 24;
            Opcode op = d.decode(bits, size);
            boolean jumps = op != null && (op.hasBranchTarget() || op.mnemonic().equals("jalr") || op.mnemonic().equals("c.jr"));
            if (op != null && op.hasBranchTarget() && f.contains(a + op.branchOffset(bits))) {
                out.add(a + op.branchOffset(bits));
            }
            if (jumps && f.contains(a + size)) {
                out.add(a + size);
            }
        }
        return new ArrayList<>(out);
    }

    private byte[] insertAt(ElfFile elf, List<String> functions, boolean everyInstruction, String fragment, BranchTarget policy) {
        List<Insertion> ins = new ArrayList<>();
        for (String name : functions) {
            long start = elf.symbol(name).orElseThrow(() -> new AssertionError("no " + name)).value();
            Function f = elf.functionContaining(start).orElseThrow();
            List<Long> allowed = Rewrite.of(elf).insertionPoints(f);
            List<Long> points = everyInstruction ? allowed : blockStarts(elf, f);
            assertTrue(allowed.containsAll(blockStarts(elf, f)) || everyInstruction, name + ": a block start is refused");
            for (long a : points) {
                ins.add(new Insertion(a, fragment, policy));
            }
        }
        return Inserter.insert(elf, ins);
    }

    private Path check(String program, List<String> functions, boolean every, String fragment, BranchTarget policy,
                       String... args) throws Exception {
        Path in = TestPrograms.rv64(program);
        ElfFile elf = ElfFile.read(in);
        byte[] out = insertAt(elf, functions, every, fragment, policy);
        Path rewritten = PatchFixtures.write(tmp, program + "." + policy + (every ? ".every" : ".blocks"), out);
        PatchFixtures.assertSameRun(in, rewritten, args);
        assertEquals(Arrays.hashCode(out), Arrays.hashCode(insertAt(elf, functions, every, fragment, policy)), "deterministic");
        PeerTools.assertReadableWithoutWarnings(rewritten);
        return rewritten;
    }

    /** Like {@link #check}, and the FDEs of {@code grown} no longer fit in place: .eh_frame grew. */
    private void checkGrown(String program, List<String> functions, List<String> grown, boolean every, String fragment,
                            String... args) throws Exception {
        Path rewritten = check(program, functions, every, fragment, BranchTarget.INSERTED, args);
        EhFrames.assertGrew(TestPrograms.rv64(program), rewritten, tmp, grown);
    }

    @Test
    void probesAtEveryBlockStartOfLoops() throws Exception {
        // jump table (classify), recursion (fib), function pointers (apply_all and the operations table)
        check("loops.relocs", List.of("hot_loop", "classify", "fib", "apply_all", "main"), false, PROBE,
                BranchTarget.INSERTED);
        check("loops.relocs", List.of("hot_loop", "classify", "fib", "apply_all", "main"), false, PROBE,
                BranchTarget.ORIGINAL, "77");
    }

    @Test
    void everyInstructionOfProgramAndCLibraryFunctions() throws Exception {
        check("loops.relocs", List.of("hot_loop", "classify", "fib", "apply_all", "main", "strlen", "memset", "____strtol_l_internal"),
                true, NOP, BranchTarget.INSERTED, "300");
        check("loops.norvc", List.of(), true, NOP, BranchTarget.INSERTED);
    }

    @Test
    void everyInstructionOfCLibraryFunctionsWhoseFdesMustGrow() throws Exception {
        // printf's stdio internals: run on the first output; their CFA programs outgrow their FDEs
        List<String> stdio = List.of("_IO_new_file_setbuf", "_IO_setb");
        checkGrown("loops.relocs", stdio, stdio, true, NOP, "300");
        List<String> printf = List.of("printf", "__vfprintf_internal", "_IO_new_file_xsputn", "__libc_malloc", "_int_malloc",
                "__libc_free", "_int_free", "memcpy");
        checkGrown("loops.relocs", printf, List.of("_IO_new_file_xsputn"), true, PROBE, "300");
        // the unwinder itself, and libstdc++ functions on the throw path
        List<String> unwinder = List.of("_Unwind_Resume", "execute_cfa_program", "search_object", "uw_install_context_1",
                "read_encoded_value", "_ZL17parse_lsda_headerP15_Unwind_ContextPKhP16lsda_header_info",
                "_ZL16get_adjusted_ptrPKSt9type_infoS1_PPv", "__cxa_init_primary_exception", "_ZNSt11logic_errorC2EPKc",
                "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm");
        checkGrown("exceptions.relocs", unwinder, unwinder, true, NOP);
    }

    @Test
    void uncompressedCodeWithRelocations() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        assertTrue(in.toFile().exists());
        // built with -march=rv64g: no compressed branches to relax
        Path norvc = TestPrograms.rv64("loops.norvc");
        ElfFile elf = ElfFile.read(norvc);
        if (elf.relocations().stream().anyMatch(r -> r.target().isExecutable())) {
            check("loops.norvc", List.of("classify", "fib"), true, NOP, BranchTarget.INSERTED);
        }
    }

    @Test
    void cPlusPlusExceptionsThroughRewrittenFunctionsAreCaught() throws Exception {
        check("patch_unwind.relocs", List.of("_Z5relayi", "_Z11twice_relayi", "_Z7throweri"), true, NOP,
                BranchTarget.INSERTED);
        // functions with cleanups and catch blocks: their call-site tables (LSDA) follow
        List<String> withLsda = List.of("_Z8validatei", "_Z7processRKSt6vectorIiSaIiEE", "main");
        check("exceptions.relocs", withLsda, false, PROBE, BranchTarget.INSERTED);
        check("exceptions.relocs", withLsda.subList(1, 3), false, PROBE, BranchTarget.ORIGINAL);
        check("exceptions.relocs", withLsda, true, NOP, BranchTarget.INSERTED);
        check("patch_unwind.relocs", List.of("_Z5relayi", "_Z11twice_relayi"), false, PROBE, BranchTarget.ORIGINAL);
        // long fragments: every CFA advance of the functions between thrower and catcher outgrows its FDE
        List<String> relays = List.of("_Z7throweri", "_Z5relayi", "_Z11twice_relayi");
        checkGrown("patch_unwind.relocs", relays, relays, true, NOP.repeat(100));
        // validate's FDE (LSDA, personality CIE) outgrows its place: thrown from its new copy, caught in main
        checkGrown("exceptions.relocs", withLsda, List.of("_Z8validatei"), true, PROBE);
        Tools.Result run = PatchFixtures.qemu(TestPrograms.rv64("patch_unwind.relocs"));
        assertTrue(run.stdout().startsWith("caught=") && run.exitCode() > 0, run.stdout());
    }
}
