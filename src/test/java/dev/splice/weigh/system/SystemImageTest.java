package dev.splice.weigh.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ExecutableBuilder;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.testing.Tools;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.CpuAffinity;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbeProgram;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same static executable under qemu-riscv64 (Linux user mode) and on qemu-system-riscv64 in
 * U-mode under Splice's M-mode monitor with Sv39 paging: same output, same exit status, and, for a
 * generated probe, the plugin's validation records identical instruction for instruction.
 */
class SystemImageTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final long TEXT = 0x11000;
    private static final long DATA = 0x1000_0000L;
    /** Integer, load/store, branch, jalr, LR/SC, AMO, FP with both flag states, CSR, fence contexts. */
    private static final String CONTEXTS = String.join(",", "addi.dependency", "mul.dependency", "div.dependency",
            "ld.hot-load", "sd.hot-store", "c.ld.hot-load", "beq.taken", "c.bnez.not-taken", "jalr.indirect-jump", "jalr.ret",
            "c.jalr.call", "sc.d.reservation-pair", "amoadd.d.amo", "fdiv.d.dependency.nx-set", "fadd.s.dependency.nx-clear",
            "csrrs.fflags", "csrrw.frm", "csrrs.time", "fence.rw-rw", "fence.i.fetch", "c.sdsp.stack-store");

    @TempDir
    Path dir;

    @Test
    void aProbeValidatesIdenticallyInUserAndSystemMode() throws IOException {
        ContextTable table = ContextTable.load();
        ProbeProgram.Probe probe = ProbeProgram.generate(table, table.select(CONTEXTS),
                new ProbeOptions(11, 1, List.of(1, 4), 2));
        Path elf = dir.resolve("probe.elf");
        Files.write(elf, probe.elf());
        elf.toFile().setExecutable(true); // qemu-riscv64 exits 1 without a word on a file it may not execute
        SystemImage image = SystemImage.of(ElfFile.read(elf));
        QemuPlugin plugin = QemuPlugin.locate();
        Path userRecords = dir.resolve("user.records");
        Path systemRecords = dir.resolve("system.records");
        Path userOut = dir.resolve("user.out");
        QemuPlugin.CodeRange range = SystemQemu.codeRange(image);
        Tools.Result user = Tools.run("sh", "-c", "qemu-riscv64 -plugin '" + plugin.argument("validation", userRecords,
                Optional.of(range)) + "' " + elf + " > " + userOut);
        assertEquals(0, user.exitCode(), user.stderr());
        SystemQemu.Result system = SystemQemu.run(image, Optional.of(plugin.argument("validation", systemRecords,
                Optional.of(range))), TIMEOUT);
        assertEquals(0, system.exitStatus(), system.diagnostics());
        // The probe's standard output: the clock header and readings, as many bytes in both modes.
        assertEquals(Files.size(userOut), system.output().length);
        List<String> u = comparable(userRecords);
        List<String> s = comparable(systemRecords);
        assertTrue(u.stream().filter(l -> l.startsWith("window ")).count() > 100, "windows recorded");
        assertEquals(u, s, "every window's executed encodings and counts");
    }

    @Test
    void writeClockAndExitStatusBehaveAsUnderLinux() throws IOException {
        String text = """
                _start:
                    li a0, 1
                    lla a1, message
                    li a2, 6
                    li a7, 64
                    ecall
                    mv s1, a0
                    li a0, 1
                    lla a1, times
                    li a7, 113
                    ecall
                    li a0, 1
                    lla a1, times + 16
                    li a7, 113
                    ecall
                    li a0, 1
                    lla a1, times
                    li a2, 32
                    li a7, 64
                    ecall
                    addi a0, s1, 1
                    li a7, 93
                    ecall
                """;
        Path elf = program(text, "hello\n".getBytes());
        Path out = dir.resolve("user.out");
        Tools.Result user = Tools.run("sh", "-c", "qemu-riscv64 " + elf + " > " + out);
        assertEquals(7, user.exitCode(), "write returned 6, the program exits with it plus 1");
        SystemQemu.Result system = SystemQemu.run(SystemImage.of(ElfFile.read(elf)), Optional.empty(), TIMEOUT);
        assertEquals(7, system.exitStatus(), system.diagnostics());
        byte[] userBytes = Files.readAllBytes(out);
        assertEquals(6 + 32, system.output().length);
        assertArrayEquals(java.util.Arrays.copyOf(userBytes, 6), java.util.Arrays.copyOf(system.output(), 6));
        ByteBuffer times = ByteBuffer.wrap(system.output(), 6, 32).order(ByteOrder.LITTLE_ENDIAN);
        long first = times.getLong() * 1_000_000_000L + times.getLong();
        long second = times.getLong() * 1_000_000_000L + times.getLong();
        assertTrue(second >= first && second - first < 1_000_000_000L, first + " then " + second);
    }

    @Test
    void otherTrapsEndTheRunWithTheirCause() throws IOException {
        // An illegal instruction (mcause 2) and a load from an unmapped page (load page fault, 13).
        Path illegal = program("_start:\n    .word 0\n", new byte[8]);
        assertEquals(SystemImage.TRAP_STATUS_BASE + 2, SystemQemu.run(SystemImage.of(ElfFile.read(illegal)), Optional.empty(),
                TIMEOUT).exitStatus());
        Path unmapped = program("_start:\n    li t0, 0x20000000\n    ld t1, 0(t0)\n    li a0, 0\n    li a7, 93\n    ecall\n", new byte[8]);
        assertEquals(SystemImage.TRAP_STATUS_BASE + 13, SystemQemu.run(SystemImage.of(ElfFile.read(unmapped)), Optional.empty(),
                TIMEOUT).exitStatus());
        assertEquals(128 + 11, Tools.run("qemu-riscv64", unmapped.toString()).exitCode(), "SIGSEGV under Linux");
    }

    @Test
    void aTimerInterruptIsTakenAndReturnedInSupervisorMode() throws IOException {
        // stimecmp 0 is in the past: the interrupt is taken right after the write, and the monitor's
        // handler sets stimecmp to -1 again; reading it back shows which of the two happened.
        String text = """
                _start:
                    li s1, 0
                    li s2, 50
                again:
                    csrrw zero, stimecmp, zero
                    csrrs t0, stimecmp, zero
                    addi t0, t0, 1
                    bnez t0, done
                    addi s1, s1, 1
                    bne s1, s2, again
                done:
                    li t1, -1
                    csrrw zero, stimecmp, t1
                    csrrs t2, stimecmp, zero
                    addi a0, s1, 0
                    bne t2, t1, failed
                """;
        SystemQemu.Result r = runInSupervisorMode(text);
        assertEquals(50, r.exitStatus(), "50 interrupts taken, each one's handler moved stimecmp to -1: "
                + r.diagnostics());
    }

    /**
     * A store to the read-only page is a store page fault that S-mode handles itself: the handler the
     * monitor delegates it to skips the store and returns with sret, so the program goes on in S-mode
     * and finds the trap's own record in the S-mode CSRs (scause 15, stval the address, sepc past the
     * store), the page unchanged. Were the fault not delegated, the monitor would end the run (115).
     */
    @Test
    void aStorePageFaultIsDelegatedToSupervisorModeAndReturnsWithSret() throws IOException {
        String text = """
                _start:
                    li a5, READ_ONLY
                    li t1, 7
                    li s1, 0
                    li s2, 20
                again:
                    lla t3, stored
                stored:
                    sd t1, 0(a5)
                    csrrs t0, sepc, zero
                    addi t3, t3, 4
                    bne t0, t3, failed
                    addi s1, s1, 1
                    bne s1, s2, again
                    csrrs t0, scause, zero
                    li t2, 15
                    bne t0, t2, failed
                    csrrs t0, stval, zero
                    bne t0, a5, failed
                    ld t0, 0(a5)
                    bnez t0, failed
                    addi a0, s1, 0
                """.replace("READ_ONLY", "0x" + Long.toHexString(SystemImage.READ_ONLY_PAGE));
        SystemQemu.Result r = runInSupervisorMode(text);
        assertEquals(20, r.exitStatus(), "20 faults, each handled in S-mode and returned from past the store: " + r.diagnostics());
    }

    /**
     * Runs a program of {@code text} (with 8 bytes of data) in an S-mode image, without the plugin;
     * after the text it exits with {@code a0}, and at the label {@code failed} with 1.
     */
    private SystemQemu.Result runInSupervisorMode(String text) throws IOException {
        Path elf = program(text + "    li a7, 93\n    ecall\nfailed:\n    li a0, 1\n    li a7, 93\n    ecall\n", new byte[8]);
        return SystemQemu.run(SystemImage.of(ElfFile.read(elf), SystemImage.Privilege.SUPERVISOR, -1), Optional.empty(), TIMEOUT);
    }

    @Test
    void functionsOnMachineCodePagesRunInMachineModeAndReturnToSupervisorMode() throws IOException {
        // The function at 0x12000 reads mscratch (M-mode only: the monitor's save area) and a word of
        // the data segment through a pc-relative address (physical in M-mode); the caller, back in
        // S-mode, exits with 0 when both are right. Traps are fatal here (no address returns at once).
        String text = """
                _start:
                    call machine
                    li t1, %d
                    bne a0, t1, wrong
                    li t1, 0x1234
                    bne a1, t1, wrong
                    CHECK
                    li a0, 0
                    li a7, 93
                    ecall
                wrong:
                    li a0, 1
                    li a7, 93
                    ecall
                .balign 4096
                machine:
                    csrrs a0, mscratch, zero
                    lla t0, message
                    ld a1, 0(t0)
                    ret
                .balign 4096
                """.formatted(SystemImage.MONITOR_DATA);
        byte[] data = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0x1234).array();
        SystemImage.MachineCode pages = new SystemImage.MachineCode(TEXT + 0x1000, TEXT + 0x2000);
        Path elf = program(text.replace("CHECK", "nop"), data);
        SystemQemu.Result r = SystemQemu.run(SystemImage.withMachineCode(ElfFile.read(elf), -1, pages), Optional.empty(),
                TIMEOUT);
        assertEquals(0, r.exitStatus(), r.diagnostics());
        // Back in S-mode, the caller itself cannot read mscratch: an illegal instruction (mcause 2).
        Path back = program(text.replace("CHECK", "csrrs t0, mscratch, zero"), data);
        assertEquals(SystemImage.TRAP_STATUS_BASE + 2, SystemQemu.run(SystemImage.withMachineCode(ElfFile.read(back), -1,
                pages), Optional.empty(), TIMEOUT).exitStatus());
    }

    @Test
    void theSecondHartAddsToTheContendedLineAndNeverToTheQuietOne() throws IOException {
        // Hart 0 waits (a bounded time) for the contended line to change, then reads the quiet one.
        String text = """
                _start:
                    li s2, %d
                    li s3, %d
                    ld s4, 0(s2)
                    li t0, 200000000
                spin:
                    ld s5, 0(s2)
                    bne s5, s4, grown
                    addi t0, t0, -1
                    bnez t0, spin
                    li a0, 1
                    j out
                grown:
                    ld s6, 0(s3)
                    li a0, 2
                    bnez s6, out
                    li a0, 0
                out:
                    li a7, 93
                    ecall
                """.formatted(SystemImage.CONTEND_PAGES, SystemImage.CONTEND_PAGES + 4096);
        SystemImage image = SystemImage.of(ElfFile.read(program(text, new byte[8])), SystemImage.Privilege.SUPERVISOR, -1);
        SystemQemu.Result two = SystemQemu.run(image.onTwoHarts(), Optional.empty(), TIMEOUT);
        assertEquals(0, two.exitStatus(), "1: the contended line did not grow, 2: the quiet one changed; " + two.diagnostics());
        SystemQemu.Result one = SystemQemu.run(image, Optional.empty(), TIMEOUT);
        assertEquals(1, one.exitStatus(), "on one hart nobody contends");
    }

    @Test
    void hartZeroSeesTheSecondHartsAddsInsideItsWindowsWithThePluginAndWithout() throws IOException {
        // Windows as a probe's: hart 0 reads the contended line, adds to it 1024 times, reads it again;
        // what grew beyond its own 1024 adds is hart 1's, added while hart 0 ran. It ends (status 0)
        // after 16 such windows, or gives up (status 1) after 200,000 windows (seconds of a loaded host).
        String text = """
                _start:
                    li s2, %d
                    li s3, 16
                    li s6, 200000
                    li a1, 1
                window:
                    ld s4, 0(s2)
                    li t0, 1024
                add:
                    amoadd.d zero, a1, (s2)
                    addi t0, t0, -1
                    bnez t0, add
                    ld s5, 0(s2)
                    sub s5, s5, s4
                    addi s5, s5, -1024
                    beqz s5, next
                    addi s3, s3, -1
                    beqz s3, seen
                next:
                    addi s6, s6, -1
                    bnez s6, window
                    li a0, 1
                    j out
                seen:
                    li a0, 0
                out:
                    li a7, 93
                    ecall
                """.formatted(SystemImage.CONTEND_PAGES);
        SystemImage image = SystemImage.of(ElfFile.read(program(text, new byte[8])), SystemImage.Privilege.SUPERVISOR, -1)
                .onTwoHarts();
        List<Integer> online = CpuAffinity.cpuList(Files.readString(CpuAffinity.ONLINE).strip());
        List<Integer> apart = List.of(online.get(online.size() - 1), online.get(online.size() - 2));
        SystemQemu.Result off = SystemQemu.run(image, Optional.empty(), TIMEOUT);
        assertEquals(0, off.exitStatus(), "plugin off: hart 1 never added while hart 0's windows ran " + off.diagnostics());
        assertEquals(apart, off.hartCpus(), "each hart's thread on a CPU of its own, hart 0 on the last");
        Path records = dir.resolve("timing.records");
        SystemQemu.Result on = SystemQemu.run(image, Optional.of(QemuPlugin.locate().argument("timing", records,
                Optional.of(SystemQemu.codeRange(image)))), TIMEOUT);
        assertEquals(0, on.exitStatus(), "plugin on: hart 1 never added while hart 0's windows ran " + on.diagnostics());
        assertEquals(apart, on.hartCpus());
        assertTrue(Files.exists(records), "the plugin ran");
    }

    @Test
    void eachHartGetsACpuOfItsOwnHartZeroTheCallersOrTheLast() {
        assertEquals(List.of(1, 0), HartPinning.cpus(2, List.of(0, 1), List.of(1)), "a campaign's timed pass: on CPU 1");
        assertEquals(List.of(1, 0), HartPinning.cpus(2, List.of(0, 1), List.of(0, 1)), "not pinned: the last CPU first");
        assertEquals(List.of(0, 1), HartPinning.cpus(2, List.of(0, 1), List.of(0)));
        assertEquals(List.of(2, 3), HartPinning.cpus(2, List.of(0, 1, 2, 3), List.of(2)));
        assertEquals(List.of(3), HartPinning.cpus(1, List.of(0, 1, 2, 3), List.of(5)), "a CPU not online is not taken");
        BadInputException e = assertThrows(BadInputException.class, () -> HartPinning.cpus(2, List.of(0), List.of(0)));
        assertTrue(e.getMessage().contains("2 harts need 2 online CPUs"), e.getMessage());
    }

    private Path program(String text, byte[] data) throws IOException {
        Assembly asm = Assembler.assemble(text, "test.s", TEXT, Map.of("message", DATA, "times", DATA + 64));
        byte[] bytes = new byte[128];
        System.arraycopy(data, 0, bytes, 0, data.length);
        Path elf = dir.resolve("program-" + Integer.toHexString(text.hashCode()) + ".elf");
        Files.write(elf, ExecutableBuilder.build(TEXT, TEXT, asm.bytes(), DATA, bytes, 0));
        elf.toFile().setExecutable(true);
        return elf;
    }

    /** The records without the lines that differ by mode on purpose (translation counts of the monitor's blocks). */
    private static List<String> comparable(Path records) throws IOException {
        return Files.readAllLines(records).stream().filter(l -> !l.startsWith("footer ")).toList();
    }
}
