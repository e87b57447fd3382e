package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.patch.PatchException.Reason;

/**
 * Where the counters are written: a fragment at the entry of {@code _exit} that calls
 * {@code __splice_exit}. In static glibc every way a process ends through the C library goes
 * there: return from {@code main} and {@code exit} (through {@code _exit}), {@code _exit}, and
 * {@code exit} from any thread. A raw {@code exit_group} system call, or a fatal signal, does not:
 * the counters are lost then (docs/patch.md, "Exit hook").
 */
final class ExitHook {
    /** The function hooked. */
    static final String FUNCTION = "_exit";
    /** The hook: save ra, call the runtime (which keeps every other register), restore ra. */
    static final String FRAGMENT = """
            addi sp, sp, -16
            sd ra, 8(sp)
            call __splice_exit
            ld ra, 8(sp)
            addi sp, sp, 16
            """;

    private ExitHook() {}

    /** The hook's insertion; refuses a binary without {@code _exit}. */
    static Insertion insertion(Input in) {
        for (Function f : in.elf().functions()) {
            if (f.name().equals(FUNCTION)) {
                return new Insertion(f.address(), FRAGMENT, "exit hook (" + FUNCTION + ")", BranchTarget.INSERTED);
            }
        }
        throw new PatchException(Reason.NO_EXIT_HOOK, in.file() + ": no function '" + FUNCTION + "' to hook, so the counters "
                + "could not be written when the program ends (a program without the C library exits by system calls Splice "
                + "does not hook)");
    }
}
