package dev.splice.weigh.system;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.ExecutableBuilder;
import dev.splice.elf.Segment;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A bootable image for {@code qemu-system-riscv64 -machine virt -bios none} that runs a static
 * RISC-V64 Linux executable without libc (the probes {@code weigh measure} generates) unchanged in
 * U-mode, under Sv39 paging, so that its loads and stores go through QEMU's softmmu TLB as an
 * operating system's processes do (docs/weigh-system.md).
 *
 * <p>A small M-mode monitor, assembled by Splice, boots first: it sets the trap vector, opens PMP
 * and the counters to U-mode, turns floating point on, installs the page table that maps every
 * {@code PT_LOAD} segment of the executable at its own virtual addresses (and a stack), and enters
 * the executable's entry point in U-mode. The executable's system calls trap to the monitor:
 * {@code write} (64) copies the bytes to the UART (the probe's standard output), {@code
 * clock_gettime} (113) reads the CLINT's {@code mtime} (10 MHz on virt), {@code exit}/{@code
 * exit_group} (93/94) end QEMU with the status through the test device. Any other trap ends QEMU
 * with status {@link #TRAP_STATUS_BASE} + {@code mcause} (a fault, an unknown system call: 108).
 * The monitor saves and restores every register it uses, so the executable sees only {@code a0}
 * change, as under Linux.
 *
 * @param monitor the monitor's ELF executable ({@code -kernel}), with its page tables as data
 * @param loads the executable's segments, each to be loaded at a physical address ({@code -device loader})
 * @param codeStart the executable's lowest code address (virtual), for the plugin's range
 * @param codeEnd the end of its code (virtual, exclusive)
 */
public record SystemImage(byte[] monitor, List<Load> loads, long codeStart, long codeEnd) {
    /** Exit status of QEMU when the executable trapped for another reason than a system call: this plus mcause. */
    public static final int TRAP_STATUS_BASE = 100;

    /** Where virt's DRAM starts, and the monitor with it. */
    static final long DRAM = 0x8000_0000L;
    /** The monitor's data: the register save area, then the page tables (4 KiB aligned). */
    static final long MONITOR_DATA = DRAM + 0x1_0000;
    /** Physical memory for the executable's segments and stack. */
    static final long LOAD_BASE = DRAM + 0x40_0000;
    /** The RAM QEMU is given ({@code -m}); everything loaded must end below DRAM plus this. */
    static final long RAM_BYTES = 256L << 20;
    static final long UART = 0x1000_0000L;
    static final long TEST_DEVICE = 0x10_0000L;
    static final long MTIME = 0x200_bff8L;
    /**
     * The user stack: 64 KiB below this virtual address (below 2^38, Sv39's user half). The stack
     * pointer starts a page below it, over zeros that read as Linux's initial stack with no
     * arguments, environment or auxiliary vector (argc 0, then null pointers).
     */
    static final long STACK_TOP = 0x3f_0000_0000L;
    static final int STACK_PAGES = 16;
    private static final long PAGE = 4096;
    private static final long MAX_SEGMENT_BYTES = 64L << 20;

    /** A segment's bytes and the physical address they go to. */
    public record Load(long physicalAddress, byte[] bytes) {}

    /**
     * The image that runs {@code executable}.
     *
     * @param executable a static RISC-V64 executable (ET_EXEC) that uses only the system calls above
     * @return the image
     * @throws BadInputException when it is not such an executable, or does not fit in the RAM
     */
    public static SystemImage of(ElfFile executable) {
        if (!executable.isRiscV() || executable.header().type() != ElfHeader.ET_EXEC) {
            throw new BadInputException(executable.name() + ": system mode runs static RISC-V64 executables (ET_EXEC) only");
        }
        Map<Long, Long> pages = new TreeMap<>(); // virtual page number -> PTE
        List<Load> loads = new ArrayList<>();
        long next = LOAD_BASE;
        long codeStart = -1;
        long codeEnd = 0;
        ByteBuffer file = executable.bytes();
        for (Segment s : executable.segments()) {
            if (!s.isLoad() || s.memorySize() == 0) {
                continue;
            }
            long start = Math.floorDiv(s.virtualAddress(), PAGE) * PAGE;
            long end = align(s.virtualAddress() + s.memorySize());
            if (s.virtualAddress() < 0 || end > STACK_TOP - STACK_PAGES * PAGE || end - start > MAX_SEGMENT_BYTES
                    || s.fileSize() > s.memorySize() || s.offset() + s.fileSize() > executable.length()) {
                throw new BadInputException(executable.name() + ": segment " + s.index() + " does not fit system mode's layout");
            }
            byte[] blob = new byte[(int) (end - start)];
            file.slice((int) s.offset(), (int) s.fileSize()).get(blob, (int) (s.virtualAddress() - start), (int) s.fileSize());
            loads.add(new Load(next, blob));
            for (long off = 0; off < blob.length; off += PAGE) {
                long vpn = (start + off) / PAGE;
                if (pages.put(vpn, leaf((next + off) / PAGE, s.flags())) != null) {
                    throw new BadInputException(executable.name() + ": segments share the page at 0x" + Long.toHexString(vpn * PAGE));
                }
            }
            next += blob.length;
            if (s.isExecutable()) {
                codeStart = codeStart < 0 ? s.virtualAddress() : Math.min(codeStart, s.virtualAddress());
                codeEnd = Math.max(codeEnd, s.virtualAddress() + s.fileSize());
            }
        }
        if (codeStart < 0) {
            throw new BadInputException(executable.name() + ": no executable segment");
        }
        for (int k = 1; k <= STACK_PAGES; k++) {
            pages.put(STACK_TOP / PAGE - k, leaf(next / PAGE, Segment.PF_R | Segment.PF_W));
            next += PAGE;
        }
        if (next > DRAM + RAM_BYTES) {
            throw new BadInputException(executable.name() + ": needs " + ((next - LOAD_BASE) >> 20) + " MiB, more than system mode's RAM");
        }
        long entry = executable.header().entry();
        byte[] tables = PageTables.build(pages, MONITOR_DATA + PAGE);
        long satp = (8L << 60) | ((MONITOR_DATA + PAGE) / PAGE);
        Assembly asm = Assembler.assemble(monitor(entry, satp), "monitor.s", DRAM, Map.of());
        ByteBuffer data = ByteBuffer.allocate((int) PAGE + tables.length).order(ByteOrder.LITTLE_ENDIAN);
        data.position((int) PAGE).put(tables);
        Long start = asm.labels().get("_start");
        byte[] elf = ExecutableBuilder.build(start, DRAM, asm.bytes(), MONITOR_DATA, data.array(), 0);
        return new SystemImage(elf, List.copyOf(loads), codeStart, codeEnd);
    }

    /** A leaf PTE for user code or data: valid, user, accessed and dirty set (QEMU would fault to set them). */
    private static long leaf(long physicalPage, int flags) {
        long pte = 1 | (1 << 4) | (1 << 6) | (1 << 7);
        if ((flags & Segment.PF_R) != 0 || (flags & Segment.PF_W) != 0) {
            pte |= 1 << 1; // a writable page must be readable too
        }
        if ((flags & Segment.PF_W) != 0) {
            pte |= 1 << 2;
        }
        if ((flags & Segment.PF_X) != 0) {
            pte |= 1 << 3;
        }
        return (physicalPage << 10) | pte;
    }

    private static long align(long v) {
        return Math.floorDiv(v + PAGE - 1, PAGE) * PAGE;
    }

    /**
     * The monitor's listing. QEMU's reset code jumps to DRAM's start, so {@code _start} comes first;
     * the trap handler's address is 4-byte aligned, as {@code mtvec} needs, because every monitor
     * instruction is 4 bytes long. The save area is the first 64 bytes of the monitor's data.
     */
    private static String monitor(long entry, long satp) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("SAVE", hex(MONITOR_DATA));
        v.put("UART", hex(UART));
        v.put("TEST", hex(TEST_DEVICE));
        v.put("MTIME", hex(MTIME));
        v.put("SATP", hex(satp));
        v.put("ENTRY", hex(entry));
        v.put("STACK", hex(STACK_TOP - PAGE));
        v.put("TRAPBASE", Integer.toString(TRAP_STATUS_BASE));
        String text = """
                _start:
                    lla t0, trap
                    csrw mtvec, t0
                    li t0, -1
                    csrw mcounteren, t0
                    csrw scounteren, t0
                    csrw pmpaddr0, t0
                    li t0, 0x1f
                    csrw pmpcfg0, t0
                    li t0, SATP
                    csrw satp, t0
                    sfence.vma zero, zero
                    li t0, 0x1800
                    csrc mstatus, t0
                    li t0, 0x2000
                    csrs mstatus, t0
                    li t0, ENTRY
                    csrw mepc, t0
                    li t0, SAVE
                    csrw mscratch, t0
                    li sp, STACK
                    mret
                trap:
                    csrrw sp, mscratch, sp
                    sd t0, 0(sp)
                    sd t1, 8(sp)
                    sd t2, 16(sp)
                    sd t3, 24(sp)
                    csrr t0, mcause
                    li t1, 8
                    bne t0, t1, fatal
                    li t1, 64
                    beq a7, t1, sys_write
                    li t1, 113
                    beq a7, t1, sys_clock
                    li t1, 93
                    beq a7, t1, sys_exit
                    li t1, 94
                    beq a7, t1, sys_exit
                fatal:
                    addi a0, t0, TRAPBASE
                sys_exit:
                    li t1, 0x5555
                    beq a0, zero, exit_now
                    slli t1, a0, 16
                    li t0, 0x3333
                    or t1, t1, t0
                exit_now:
                    li t0, TEST
                    sw t1, 0(t0)
                hang:
                    j hang
                sys_write:
                    li t0, 0x20000
                    add t2, a1, a2
                    li t3, UART
                write_byte:
                    bgeu a1, t2, write_done
                    csrs mstatus, t0
                    lbu t1, 0(a1)
                    csrc mstatus, t0
                    sb t1, 0(t3)
                    addi a1, a1, 1
                    j write_byte
                write_done:
                    sub a1, a1, a2
                    mv a0, a2
                    j back
                sys_clock:
                    li t0, MTIME
                    ld t0, 0(t0)
                    li t1, 10000000
                    divu t2, t0, t1
                    remu t3, t0, t1
                    li t1, 100
                    mul t3, t3, t1
                    li t0, 0x20000
                    csrs mstatus, t0
                    sd t2, 0(a1)
                    sd t3, 8(a1)
                    csrc mstatus, t0
                    li a0, 0
                back:
                    csrr t0, mepc
                    addi t0, t0, 4
                    csrw mepc, t0
                    ld t0, 0(sp)
                    ld t1, 8(sp)
                    ld t2, 16(sp)
                    ld t3, 24(sp)
                    csrrw sp, mscratch, sp
                    mret
                """;
        for (Map.Entry<String, String> e : v.entrySet()) {
            text = text.replaceAll("\\b" + e.getKey() + "\\b", e.getValue());
        }
        return text;
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }
}
