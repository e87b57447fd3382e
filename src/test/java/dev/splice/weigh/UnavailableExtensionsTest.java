package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every claim of {@code unavailable.tsv} checked on this QEMU (issue 14): QEMU refuses the missing
 * property, the setup alone runs on the named CPU model, and the instruction after it dies of SIGILL
 * there. The programs are assembled by llvm-mc-22 and linked by GNU ld.
 */
class UnavailableExtensionsTest {
    private static final String MATTR = "+m,+a,+f,+d,+c,+zicond,+zfa,+zacas,+zabha,+zcb,+zcmop,+zimop,+zawrs,"
            + "+zicbom,+zicboz,+svinval,+h,+v,+zvbb,+zvbc,+zvkg,+zvkned,+zvknha,+zvknhb,+zvksed,+zvksh";
    private static final int SIGILL = 128 + 4;

    @TempDir Path tmp;

    @Test
    void listsTheIssuesExtensionsThatQemuCannotRun() {
        Set<String> listed = UnavailableExtension.load().stream().map(UnavailableExtension::extension)
                .collect(Collectors.toSet());
        assertTrue(listed.containsAll(Set.of("zvbb", "zvbc", "zvkg", "zvkned", "zvknha", "zvknhb", "zvksed", "zvksh",
                "zfa", "zacas", "zabha", "zcb", "zicond", "zimop", "zcmop", "zawrs", "svinval", "h")), listed.toString());
        // the contexts table and the list do not overlap, except Zicond (its sigill rows show the gap)
        Set<String> measured = ContextTable.load().contexts().stream().filter(Context::runsOnQemu)
                .map(Context::extension).collect(Collectors.toSet());
        assertTrue(listed.stream().noneMatch(measured::contains), listed + " " + measured);
    }

    @Test
    void everyListedInstructionDiesOfSigillOnItsCpuAfterASetupThatRuns() throws IOException {
        for (UnavailableExtension u : UnavailableExtension.load()) {
            Path setupOnly = build(u.extension() + "-setup", u.setup(), List.of());
            Path withInstruction = build(u.extension(), u.setup(), List.of(u.instruction()));
            assertEquals(0, Tools.run(QemuRunner.QEMU, "-cpu", u.cpu(), setupOnly.toString()).exitCode(),
                    u.extension() + ": the setup runs on " + u.cpu());
            assertEquals(SIGILL, Tools.run(QemuRunner.QEMU, "-cpu", u.cpu(), withInstruction.toString()).exitCode(),
                    u.extension() + ": " + u.instruction() + " dies of SIGILL on " + u.cpu());
            if (u.property().isPresent()) {
                String property = u.property().get();
                assertTrue(u.reason().contains("no " + property + " property"), u.reason());
                Tools.Result r = Tools.run(QemuRunner.QEMU, "-cpu", "rv64," + property + "=true", setupOnly.toString());
                assertNotEquals(0, r.exitCode(), property);
                assertTrue(r.stderr().contains("Property 'rv64-riscv-cpu." + property + "' not found"), r.stderr());
            }
        }
    }

    private Path build(String name, List<String> setup, List<String> instruction) throws IOException {
        StringBuilder s = new StringBuilder(".text\n.globl _start\n_start:\n");
        setup.forEach(l -> s.append("    ").append(l).append('\n'));
        instruction.forEach(l -> s.append("    ").append(l).append('\n'));
        s.append("    li a0, 0\n    li a7, 93\n    ecall\n");
        Path asm = tmp.resolve(name + ".s");
        Files.writeString(asm, s.toString());
        Path obj = tmp.resolve(name + ".o");
        Tools.run("llvm-mc-22", "--triple=riscv64", "-mattr=" + MATTR, "-filetype=obj", "-o", obj.toString(),
                asm.toString()).checked("llvm-mc-22 " + name);
        Path exe = tmp.resolve(name);
        Tools.run("riscv64-linux-gnu-ld", "-o", exe.toString(), obj.toString()).checked("ld " + name);
        return exe;
    }
}
