package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every refusal rule, with its message. */
class InsertRefusalTest {
    private static final String NOP = "addi x0, x0, 0\n";

    private static void refused(ElfFile elf, List<Insertion> ins, Reason reason, String... words) {
        PatchException e = assertThrows(PatchException.class, () -> Inserter.insert(elf, ins));
        assertEquals(reason, e.reason(), e.getMessage());
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), "'" + w + "' missing from: " + e.getMessage());
        }
    }

    private static ElfFile loops() {
        return ElfFile.read(TestPrograms.rv64("loops.relocs"));
    }

    @Test
    void notAnInstructionBoundary() {
        ElfFile elf = loops();
        long a = elf.function("classify").orElseThrow().address() + 3; // inside the 4-byte remw
        refused(elf, List.of(new Insertion(a, NOP, BranchTarget.INSERTED)), Reason.NOT_AN_INSTRUCTION_BOUNDARY, "not an instruction boundary",
                "classify");
    }

    @Test
    void notInAFunction() {
        ElfFile elf = loops();
        long data = elf.section(".rodata").orElseThrow().address();
        refused(elf, List.of(new Insertion(data, NOP, BranchTarget.INSERTED)), Reason.NOT_IN_FUNCTION, "not inside a function");
    }

    @Test
    void insideAPcRelativePair() {
        ElfFile elf = loops();
        Function classify = elf.function("classify").orElseThrow();
        List<Long> all = PatchFixtures.boundaries(elf, classify);
        List<Long> ok = Rewrite.of(elf).insertionPoints(classify);
        long inside = all.stream().filter(a -> !ok.contains(a)).findFirst().orElseThrow();
        // A call may write any register, the pair's too (a fragment that leaves it alone may go inside: PairInsertionTest).
        refused(elf, List.of(new Insertion(inside, "call classify\n", "call.s", BranchTarget.INSERTED)), Reason.INSIDE_PC_RELATIVE_PAIR,
                "inside the pc-relative pair", "auipc");
    }

    @Test
    void insideAnLrScSequence() {
        ElfFile elf = loops();
        for (Function f : elf.functions()) {
            if (!f.section().isExecutable()) {
                continue;
            }
            List<Long> all;
            List<Long> ok;
            try {
                all = PatchFixtures.boundaries(elf, f);
                ok = Rewrite.of(elf).insertionPoints(f);
            } catch (PatchException e) {
                continue;
            }
            byte[] text = elf.contents(f.section());
            for (long a : all) {
                int at = (int) (a - f.section().address());
                int bits = (text[at] & 0xff) | (text[at + 1] & 0xff) << 8 | (text[at + 2] & 0xff) << 16 | (text[at + 3] & 0xff) << 24;
                boolean lr = (bits & 0x7f) == 0x2f && (bits >>> 27) == 0x02;
                if (lr && all.indexOf(a) + 1 < all.size()) {
                    long next = all.get(all.indexOf(a) + 1);
                    assertTrue(!ok.contains(next));
                    refused(elf, List.of(new Insertion(next, NOP, BranchTarget.INSERTED)), Reason.INSIDE_LR_SC, "lr/sc sequence");
                    return;
                }
            }
        }
        throw new AssertionError("no lr instruction found in loops.relocs");
    }

    @Test
    void binaryWithoutRelocations() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops"));
        long a = elf.function("fib").orElseThrow().address();
        refused(elf, List.of(new Insertion(a, NOP, BranchTarget.INSERTED)), Reason.NO_RELOCATIONS, "--emit-relocs");
    }

    @Test
    void fdeThatMustGrowBeforeWhereTheUnwinderStarts() {
        // The same insertion succeeds (InsertTest): relay's FDE grows into .splice.eh_frame. With
        // __EH_FRAME_BEGIN__ moved to the terminator, the unwinder would start past the skip record.
        ElfFile original = ElfFile.read(TestPrograms.rv64("patch_unwind.relocs"));
        Section eh = original.section(".eh_frame").orElseThrow();
        Symbol begin = original.symbol(EhFrameRewriter.REGISTERED_START).orElseThrow();
        ElfEditor editor = original.edit();
        editor.setSymbol(original.section(".symtab").orElseThrow().index(), new Symbol(begin.index(), begin.name(),
                eh.address() + eh.size() - 4, begin.size(), begin.type(), begin.binding(), begin.visibility(),
                begin.sectionIndex()));
        ElfFile elf = ElfFile.parse(editor.toBytes(), original.name());
        Function relay = elf.functionContaining(elf.symbol("_Z5relayi").orElseThrow().value()).orElseThrow();
        List<Insertion> ins = new java.util.ArrayList<>();
        for (long a : Rewrite.of(elf).insertionPoints(relay)) {
            ins.add(new Insertion(a, NOP.repeat(100), BranchTarget.INSERTED));
        }
        refused(elf, ins, Reason.UNWIND_INFO, "lies before " + EhFrameRewriter.REGISTERED_START, ".eh_frame cannot grow");
    }

    @Test
    void originalPolicyAtAnEntryThatCodeMayFallInto() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("exceptions.relocs"));
        long a = elf.symbol("_Z8validatei").orElseThrow().value();
        refused(elf, List.of(new Insertion(a, NOP, BranchTarget.ORIGINAL)), Reason.OUT_OF_REACH, "may fall through into it");
    }

    @Test
    void fragmentsThatLeaveThemselvesOrUseThePc() {
        ElfFile elf = loops();
        long a = elf.function("fib").orElseThrow().address();
        refused(elf, List.of(new Insertion(a, "jal x0, 64\n", BranchTarget.INSERTED)), Reason.FRAGMENT_LEAVES_ITSELF,
                "leaves the fragment");
        refused(elf, List.of(new Insertion(a, "auipc t0, 0\n", BranchTarget.INSERTED)), Reason.FRAGMENT_USES_PC, "may not use the pc");
        refused(elf, List.of(new Insertion(a, ".target rv64gc_zba\nsh1add a0, a0, a0\n", BranchTarget.INSERTED)),
                Reason.TARGET_MISMATCH, "does not match the binary");
    }

    @Test
    void conflictingPoliciesAtOneAddress() {
        ElfFile elf = loops();
        long a = elf.function("fib").orElseThrow().address();
        refused(elf, List.of(new Insertion(a, NOP, BranchTarget.INSERTED), new Insertion(a, NOP, BranchTarget.ORIGINAL)),
                Reason.CONFLICTING_POLICIES, "disagree on the branch target policy");
    }

    @Test
    void splicesOwnOutputIsNoLongerRefused() {
        // Its relocations describe it now (RepatchTest runs second passes; BOLT outputs stay refused there).
        ElfFile elf = loops();
        long a = elf.function("fib").orElseThrow().address();
        ElfFile once = ElfFile.parse(Inserter.insert(elf, List.of(new Insertion(a, NOP, BranchTarget.INSERTED))), "once");
        long moved = once.function("fib").orElseThrow().address();
        assertTrue(Inserter.insert(once, List.of(new Insertion(moved, NOP, BranchTarget.INSERTED))).length > 0);
    }
}
