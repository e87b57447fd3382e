package dev.splice.patch;

import static dev.splice.base.Le.le64;

import dev.splice.base.Le;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.listing.Assembler;
import dev.splice.patch.PatchException.Reason;
import java.util.List;
import java.util.Map;

/**
 * Where the counters are written: calls of {@code __splice_exit} when the program ends. A binary
 * with its own {@code _exit} (static glibc) gets a fragment at the entry of {@code _exit}: every
 * way a process ends through the C library goes there (return from {@code main}, {@code exit},
 * {@code _exit}, {@code exit} from any thread). A dynamically linked binary, whose {@code _exit}
 * is in libc.so, gets a stub in {@code .splice.text} that calls the function of its
 * {@code .fini_array}'s first word (crtstuff's {@code __do_global_dtors_aux}) and then
 * {@code __splice_exit}; the first word names the stub instead. The loader's {@code _dl_fini} runs
 * the array last to first on {@code exit} and on return from {@code main} (glibc on RISC-V calls
 * no {@code DT_FINI}), so the stub ends the binary's own code. A raw {@code exit_group} system
 * call, {@code _exit} called by a dynamic program, or a fatal signal does not write them
 * (docs/patch.md, "Exit hook").
 */
final class ExitHook {
    /** The function hooked in a binary that has it. */
    static final String FUNCTION = "_exit";
    /** The hook: save ra, call the runtime (which keeps every other register), restore ra. */
    static final String FRAGMENT = """
            addi sp, sp, -16
            sd ra, 8(sp)
            call __splice_exit
            ld ra, 8(sp)
            addi sp, sp, 16
            """;
    /** The stub a {@code .fini_array} word names: the old function first, then the counters. */
    private static final String FINI_STUB = """
            addi sp, sp, -16
            sd ra, 8(sp)
            call __splice_fini_original
            call __splice_exit
            ld ra, 8(sp)
            addi sp, sp, 16
            ret
            """;
    /** The stub's size in bytes (its code does not depend on the addresses). */
    static final int FINI_STUB_SIZE = assembleStub(0x1000, 0x2000, 0x3000).length;

    private final List<Insertion> insertions;
    /** The {@code .fini_array} word's address, or -1 for a hook by insertion. */
    private final long arrayWord;
    /** The dynamic relocation that writes it ({@code R_RISCV_RELATIVE} in a PIE), or null. */
    private final RelocationIndex.Reloc relocation;
    /** The function the word names in the input. */
    private final long original;

    private ExitHook(List<Insertion> insertions, long arrayWord, RelocationIndex.Reloc relocation, long original) {
        this.insertions = insertions;
        this.arrayWord = arrayWord;
        this.relocation = relocation;
        this.original = original;
    }

    /**
     * The hook for {@code in}: at {@code _exit} when the binary has one, else through the first
     * {@code .fini_array} word; refuses a binary with neither.
     */
    static ExitHook of(Input in) {
        for (Function f : in.elf().functions()) {
            if (f.name().equals(FUNCTION)) {
                return new ExitHook(List.of(new Insertion(f.address(), FRAGMENT, "exit hook (" + FUNCTION + ")",
                        BranchTarget.INSERTED)), -1, null, 0);
            }
        }
        Section array = in.elf().sections().stream()
                .filter(s -> s.type() == Section.SHT_FINI_ARRAY && !s.isNobits() && s.size() >= 8).findFirst().orElse(null);
        if (array == null) {
            throw new PatchException(Reason.NO_EXIT_HOOK, in.file() + ": no function '" + FUNCTION + "' and no .fini_array "
                    + "to hook, so the counters could not be written when the program ends (a program without the C library "
                    + "exits by system calls Splice does not hook)");
        }
        RelocationIndex.Reloc dynamic = in.dynamicRelocations().at(array.address());
        if (dynamic != null && dynamic.relocation().symbolIndex() != 0) {
            throw new PatchException(Reason.NO_EXIT_HOOK, in.file() + ": the first word of .fini_array (0x"
                    + Long.toHexString(array.address()) + ") is written by a dynamic relocation against symbol '"
                    + dynamic.symbolName() + "', so Splice cannot make it name the hook that writes the counters");
        }
        long first = dynamic != null ? dynamic.value() : Le.u64(in.elf().contents(array), 0);
        return new ExitHook(List.of(), array.address(), dynamic, first);
    }

    /** {@return the fragments the hook inserts (at {@code _exit}); none for a {@code .fini_array} hook} */
    List<Insertion> insertions() {
        return insertions;
    }

    /** {@return the bytes the hook adds to the end of {@code .splice.text}: 0 or {@link #FINI_STUB_SIZE}} */
    int stubSize() {
        return arrayWord < 0 ? 0 : FINI_STUB_SIZE;
    }

    /**
     * The stub's bytes at {@code address}, calling the old {@code .fini_array} function where
     * {@code moved} puts it and {@code __splice_exit} of {@code runtime}, placed at {@code runtimeBase}.
     */
    byte[] stub(long address, long runtimeBase, MovedCode moved, SpliceRuntime runtime) {
        return assembleStub(address, moved.mapBranchTarget(original), runtimeBase + runtime.functions().get("__splice_exit"));
    }

    /**
     * {@return the patch that makes the first {@code .fini_array} word name the stub at {@code
     * address}: the relocation's addend in a PIE, else the word; empty for a hook by insertion}
     */
    List<Patch> patches(Input in, long address) {
        if (arrayWord < 0) {
            return List.of();
        }
        if (relocation != null) {
            return List.of(new Patch(in.dynamicRelocations().entryAddress(relocation) + DynamicRelocations.ADDEND_OFFSET,
                    le64(address)));
        }
        return List.of(new Patch(arrayWord, le64(address)));
    }

    private static byte[] assembleStub(long address, long original, long exit) {
        return Assembler.assemble(FINI_STUB, "exit hook", address, Map.of("__splice_fini_original", original,
                "__splice_exit", exit)).bytes();
    }
}
