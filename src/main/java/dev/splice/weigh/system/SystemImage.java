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
 * <p>With {@link Privilege#SUPERVISOR} the executable runs in S-mode instead (its pages without the
 * user bit), so that it can use S-mode CSRs, {@code sfence.vma} and {@code wfi}, and the image adds
 * what the system-only contexts need (docs/weigh-system.md): two always-mapped pointer-chase pages
 * at {@link #CHASE_PAGES}, two fault pages after them of which only one is mapped at a time (a load
 * page fault on one maps it, unmaps the other, flushes the TLB and retries: "handled and
 * retried"), the CLINT's {@code mtime} page at its own address, the supervisor software interrupt
 * delegated and enabled (so {@code wfi} returns at once once it is pending). An {@code ecall},
 * {@code ebreak} or illegal instruction at or above the {@code trapsReturnFrom} address (the probe's
 * kernels) returns at once to the next instruction.
 *
 * @param monitor the monitor's ELF executable ({@code -kernel}), with its page tables as data
 * @param loads the executable's segments, each to be loaded at a physical address ({@code -device loader})
 * @param codeStart the executable's lowest code address (virtual), for the plugin's range
 * @param codeEnd the end of its code (virtual, exclusive; for M-mode code, its physical end)
 * @param harts how many harts QEMU starts ({@code -smp}): the executable runs on hart 0; a second hart
 *     contends for the contended line ({@link #CONTEND_PAGES}) in S-mode images, and waits otherwise
 * @param machine the pages of M-mode code (virtual addresses; empty, 0 to 0, when there is none)
 * @param machineOffset physical minus virtual address of the M-mode code (0 when there is none)
 */
public record SystemImage(byte[] monitor, List<Load> loads, long codeStart, long codeEnd, int harts, MachineCode machine,
        long machineOffset) {
    /** Exit status of QEMU when the executable trapped for another reason than a system call: this plus mcause. */
    public static final int TRAP_STATUS_BASE = 100;

    /** Where virt's DRAM starts: QEMU's reset code jumps here, to a jump to the monitor. */
    static final long DRAM = 0x8000_0000L;
    /**
     * The monitor's code, high in DRAM: above every probe's code at both its virtual and its physical
     * addresses, so that the plugin's range, which covers both for M-mode functions, never covers the
     * monitor's handlers (docs/weigh-system.md).
     */
    static final long MONITOR = DRAM + 0x1e00_0000L;
    /**
     * The monitor's S-mode trap handler, on the page after the rest of the monitor's code (which is
     * shorter than a page), which S-mode images map executable for S-mode at its physical address;
     * outside the plugin's range.
     */
    static final long SUPERVISOR_HANDLER = MONITOR + 0x1000;
    /** The monitor's data: the register save area, then the page tables (4 KiB aligned). */
    static final long MONITOR_DATA = MONITOR + 0x1_0000;
    /** Physical memory for the executable's segments and stack. */
    static final long LOAD_BASE = DRAM + 0x40_0000;
    /** The RAM QEMU is given ({@code -m}); everything loaded must end below the monitor. */
    static final long RAM_BYTES = 512L << 20;
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

    /**
     * The pointer-chase pages (two, always mapped) and the fault pages (two more, right after them),
     * in S-mode images: each page's first doubleword holds the page's own virtual address.
     */
    public static final long CHASE_PAGES = 0x20_0000_0000L;
    /** The first fault page (initially unmapped; the second, at + 4 KiB, initially mapped). */
    public static final long FAULT_PAGES = CHASE_PAGES + 2 * 4096;
    /**
     * Two more pages in S-mode images: on the first, the second hart of a two-hart image adds to the
     * first doubleword without end (the contended line); the second no other hart touches (the quiet line).
     */
    public static final long CONTEND_PAGES = CHASE_PAGES + 4 * 4096;
    /**
     * A page mapped readable but not writable in S-mode images: a store to it is a store page fault,
     * which S-mode images delegate to the monitor's S-mode handler (it skips the store and returns
     * with {@code sret}), the trap an operating system's own handler takes.
     */
    public static final long READ_ONLY_PAGE = CHASE_PAGES + 6 * 4096;
    /** scause of a store/AMO page fault, the one exception S-mode images delegate. */
    private static final int STORE_PAGE_FAULT = 15;

    /** The CLINT page holding {@code mtime}, mapped at its own address in S-mode images. */
    static final long CLINT_PAGE = MTIME & -4096L;

    /** The privilege the executable runs in. */
    public enum Privilege {
        /** U-mode, as a Linux process. */
        USER,
        /** S-mode, as a kernel. */
        SUPERVISOR
    }

    /** A segment's bytes and the physical address they go to. */
    public record Load(long physicalAddress, byte[] bytes) {}

    /**
     * Code the executable calls that runs in M-mode: whole pages, virtual addresses.
     *
     * @param start the first page's address
     * @param end the end of the last page (exclusive)
     */
    public record MachineCode(long start, long end) {}

    /**
     * The image that runs {@code executable}.
     *
     * @param executable a static RISC-V64 executable (ET_EXEC) that uses only the system calls above
     * @return the image
     * @throws BadInputException when it is not such an executable, or does not fit in the RAM
     */
    public static SystemImage of(ElfFile executable) {
        return of(executable, Privilege.USER, -1);
    }

    /**
     * The image that runs {@code executable} in the given privilege.
     *
     * @param executable a static RISC-V64 executable (ET_EXEC) that uses only the system calls above
     * @param privilege U- or S-mode
     * @param trapsReturnFrom the lowest address (unsigned) at which an {@code ecall}, {@code ebreak} or
     *     illegal instruction returns at once instead of being a system call or ending the run; -1 for none
     * @return the image
     * @throws BadInputException when it is not such an executable, or does not fit in the RAM
     */
    public static SystemImage of(ElfFile executable, Privilege privilege, long trapsReturnFrom) {
        return of(executable, privilege, trapsReturnFrom, java.util.Optional.empty());
    }

    /**
     * The image that runs {@code executable} in S-mode, with functions on the pages of {@code
     * machine} running in M-mode: a call into those pages (from S-mode, where they are not
     * executable) traps to the monitor, which enters the function in M-mode at its physical
     * address, with the return address pointing at the monitor, and the return leaves M-mode for
     * S-mode at the caller's return address. Every segment is loaded at its virtual address plus one
     * offset, so that the functions' pc-relative data addresses are physical addresses in M-mode.
     *
     * @param executable a static RISC-V64 executable (ET_EXEC) that uses only the system calls above
     * @param trapsReturnFrom the lowest address at which a trap of the kernels returns at once (see above)
     * @param machine the pages of the M-mode functions (4 KiB aligned)
     * @return the image
     * @throws BadInputException when it is not such an executable, or does not fit in the RAM
     */
    public static SystemImage withMachineCode(ElfFile executable, long trapsReturnFrom, MachineCode machine) {
        if (machine.start() % PAGE != 0 || machine.end() % PAGE != 0 || machine.start() >= machine.end()) {
            throw new IllegalArgumentException("M-mode code must be whole pages: " + machine);
        }
        return of(executable, Privilege.SUPERVISOR, trapsReturnFrom, java.util.Optional.of(machine));
    }

    private static SystemImage of(ElfFile executable, Privilege privilege, long trapsReturnFrom,
            java.util.Optional<MachineCode> machine) {
        boolean user = privilege == Privilege.USER;
        if (!executable.isRiscV() || executable.header().type() != ElfHeader.ET_EXEC) {
            throw new BadInputException(executable.name() + ": system mode runs static RISC-V64 executables (ET_EXEC) only");
        }
        Map<Long, Long> pages = new TreeMap<>(); // virtual page number -> PTE
        List<Load> loads = new ArrayList<>();
        long next = LOAD_BASE;
        long codeStart = -1;
        long codeEnd = 0;
        ByteBuffer file = executable.bytes();
        // with M-mode code, every segment at its virtual address plus one offset (pc-relative data stays right)
        long offset = machine.isPresent() ? LOAD_BASE - executable.segments().stream().filter(Segment::isLoad)
                .mapToLong(s -> Math.floorDiv(s.virtualAddress(), PAGE) * PAGE).min().orElse(0) : 0;
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
            long at = machine.isPresent() ? start + offset : next;
            loads.add(new Load(at, blob));
            for (long off = 0; off < blob.length; off += PAGE) {
                long va = start + off;
                int flags = machine.isPresent() && va >= machine.get().start() && va < machine.get().end()
                        ? s.flags() & ~Segment.PF_X : s.flags(); // M-mode pages: a call from S-mode traps
                if (pages.put(va / PAGE, leaf((at + off) / PAGE, flags, user)) != null) {
                    throw new BadInputException(executable.name() + ": segments share the page at 0x" + Long.toHexString(va));
                }
            }
            next = Math.max(next, at + blob.length);
            if (s.isExecutable()) {
                codeStart = codeStart < 0 ? s.virtualAddress() : Math.min(codeStart, s.virtualAddress());
                codeEnd = Math.max(codeEnd, s.virtualAddress() + s.fileSize());
            }
        }
        if (codeStart < 0) {
            throw new BadInputException(executable.name() + ": no executable segment");
        }
        for (int k = 1; k <= STACK_PAGES; k++) {
            pages.put(STACK_TOP / PAGE - k, leaf(next / PAGE, Segment.PF_R | Segment.PF_W, user));
            next += PAGE;
        }
        long[] faultLeaves = new long[2];
        long contendPhysical = 0;
        if (!user) {
            for (int k = 0; k < 4; k++) {
                long va = CHASE_PAGES + k * PAGE;
                byte[] page = new byte[(int) PAGE];
                ByteBuffer.wrap(page).order(ByteOrder.LITTLE_ENDIAN).putLong(va);
                loads.add(new Load(next, page));
                long pte = leaf(next / PAGE, Segment.PF_R | Segment.PF_W, false);
                if (k >= 2) {
                    faultLeaves[k - 2] = pte;
                }
                putNew(pages, va / PAGE, k == 2 ? 0 : pte, executable);
                next += PAGE;
            }
            contendPhysical = next;
            for (int k = 0; k < 2; k++) {
                loads.add(new Load(next, new byte[(int) PAGE]));
                putNew(pages, CONTEND_PAGES / PAGE + k, leaf(next / PAGE, Segment.PF_R | Segment.PF_W, false), executable);
                next += PAGE;
            }
            putNew(pages, CLINT_PAGE / PAGE, leaf(CLINT_PAGE / PAGE, Segment.PF_R | Segment.PF_W, false), executable);
            loads.add(new Load(next, new byte[(int) PAGE]));
            putNew(pages, READ_ONLY_PAGE / PAGE, leaf(next / PAGE, Segment.PF_R, false), executable);
            next += PAGE;
            // the monitor's S-mode handler, at its own (physical) address
            putNew(pages, SUPERVISOR_HANDLER / PAGE, leaf(SUPERVISOR_HANDLER / PAGE, Segment.PF_R | Segment.PF_X, false), executable);
        }
        if (next > MONITOR) {
            throw new BadInputException(executable.name() + ": needs " + ((next - LOAD_BASE) >> 20) + " MiB, more than system mode's RAM");
        }
        long entry = executable.header().entry();
        byte[] tables = PageTables.build(pages, MONITOR_DATA + PAGE);
        long satp = (8L << 60) | ((MONITOR_DATA + PAGE) / PAGE);
        long faultPte = user ? 0 : PageTables.leafAddress(tables, MONITOR_DATA + PAGE, FAULT_PAGES / PAGE);
        MachineCode m = machine.orElse(new MachineCode(0, 0));
        Assembly asm = Assembler.assemble(monitor(entry, satp, privilege, trapsReturnFrom, faultPte, faultLeaves, m, offset,
                contendPhysical), "monitor.s", MONITOR, Map.of());
        ByteBuffer data = ByteBuffer.allocate((int) PAGE + tables.length).order(ByteOrder.LITTLE_ENDIAN);
        data.position((int) PAGE).put(tables);
        if (!Long.valueOf(SUPERVISOR_HANDLER).equals(asm.labels().get("supervisor_trap"))) {
            throw new IllegalStateException("the monitor's S-mode handler is not on the page its mapping names");
        }
        Long start = asm.labels().get("_start");
        byte[] elf = ExecutableBuilder.build(start, MONITOR, asm.bytes(), MONITOR_DATA, data.array(), 0);
        loads.add(0, new Load(DRAM, Assembler.assemble("li t0, " + hex(start) + "\njalr zero, 0(t0)\n", "reset.s", DRAM,
                Map.of()).bytes()));
        // the plugin's range: the code at its virtual addresses and, for M-mode functions, at their physical ones
        long rangeEnd = machine.isPresent() ? m.end() + offset : codeEnd;
        return new SystemImage(elf, List.copyOf(loads), codeStart, rangeEnd, 1, m, machine.isPresent() ? offset : 0);
    }

    /**
     * The same image on two harts: hart 0 runs the executable as before; hart 1 adds to the
     * contended line ({@link #CONTEND_PAGES}) without end in an S-mode image, and waits in {@code
     * wfi} in a U-mode one. Hart 1 runs only the monitor's code, outside the plugin's range.
     *
     * @return the image with {@code harts} 2
     */
    public SystemImage onTwoHarts() {
        return new SystemImage(monitor, loads, codeStart, codeEnd, 2, machine, machineOffset);
    }

    /**
     * The executable's own (virtual) address of a pc QEMU reports: M-mode code runs at its physical address.
     *
     * @param pc a guest pc
     * @return the executable's address of that instruction
     */
    public long executableAddress(long pc) {
        long physical = pc - machineOffset;
        return machineOffset != 0 && physical >= machine.start() && physical < machine.end() ? physical : pc;
    }

    private static void putNew(Map<Long, Long> pages, long vpn, long pte, ElfFile executable) {
        if (pages.put(vpn, pte) != null) {
            throw new BadInputException(executable.name() + ": a segment covers the page at 0x" + Long.toHexString(vpn * PAGE)
                    + ", which system mode's S-mode image needs");
        }
    }

    /** A leaf PTE for code or data: valid, accessed and dirty set (QEMU would fault to set them), user when asked. */
    private static long leaf(long physicalPage, int flags, boolean user) {
        long pte = 1 | (user ? 1 << 4 : 0) | (1 << 6) | (1 << 7);
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
     * The monitor's listing, at {@link #MONITOR}: QEMU's reset code jumps to DRAM's start, where a
     * jump to {@code _start} waits. The trap handler's address is 4-byte aligned, as {@code mtvec}
     * needs, because every monitor instruction is 4 bytes long. The save area is the first 64 bytes of the monitor's data.
     */
    private static String monitor(long entry, long satp, Privilege privilege, long trapsReturnFrom, long faultPte,
            long[] faultLeaves, MachineCode machine, long offset, long contendPhysical) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("SAVE", hex(MONITOR_DATA));
        v.put("UART", hex(UART));
        v.put("TEST", hex(TEST_DEVICE));
        v.put("MTIME", hex(MTIME));
        v.put("SATP", hex(satp));
        v.put("ENTRY", hex(entry));
        v.put("STACK", hex(STACK_TOP - PAGE));
        v.put("TRAPBASE", Integer.toString(TRAP_STATUS_BASE));
        // MPP: U (0) or S (0x800); FS Initial (0x2000)
        v.put("MSTATUS_SET", hex(0x2000 | (privilege == Privilege.SUPERVISOR ? 0x800 : 0)));
        // the supervisor software interrupt delegated and enabled (S-mode: wfi returns once it is pending)
        v.put("SSI", privilege == Privilege.SUPERVISOR ? "2" : "0");
        // S-mode: Sstc's stimecmp drives STIP (menvcfg.STCE), far in the future until a kernel writes it;
        // the supervisor timer interrupt is not delegated, so it traps to the monitor (mie.STIE)
        v.put("STCE", privilege == Privilege.SUPERVISOR ? "1" : "0");
        v.put("INTERRUPTS", privilege == Privilege.SUPERVISOR ? "0x22" : "0");
        v.put("RETURNS_FROM", hex(trapsReturnFrom));
        v.put("FAULT_PAGE", hex(FAULT_PAGES));
        v.put("FAULT_PTE", hex(faultPte));
        v.put("FAULT_LEAF0", hex(faultLeaves[0]));
        v.put("FAULT_LEAF1", hex(faultLeaves[1]));
        v.put("MCODE_START", hex(machine.start()));
        v.put("MCODE_END", hex(machine.end()));
        v.put("MCODE_OFFSET", hex(offset));
        v.put("CONTEND", hex(contendPhysical));
        v.put("DELEGATED", privilege == Privilege.SUPERVISOR ? hex(1L << STORE_PAGE_FAULT) : "0");
        v.put("STORE_FAULT", Integer.toString(STORE_PAGE_FAULT));
        String text = """
                _start:
                    csrr t0, mhartid
                    bnez t0, second_hart
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
                    li t0, MSTATUS_SET
                    csrs mstatus, t0
                    li t0, STCE
                    slli t0, t0, 63
                    csrs menvcfg, t0
                    li t0, -1
                    csrw stimecmp, t0
                    li t0, SSI
                    csrw mideleg, t0
                    lla t0, supervisor_trap
                    csrw stvec, t0
                    li t0, DELEGATED
                    csrw medeleg, t0
                    li t0, INTERRUPTS
                    csrw mie, t0
                    li t0, ENTRY
                    csrw mepc, t0
                    li t0, SAVE
                    csrw mscratch, t0
                    li sp, STACK
                    mret
                second_hart:
                    li t0, CONTEND
                    beqz t0, park
                    li t1, 1
                contend:
                    amoadd.d zero, t1, (t0)
                    j contend
                park:
                    wfi
                    j park
                trap:
                    csrrw sp, mscratch, sp
                    sd t0, 0(sp)
                    sd t1, 8(sp)
                    sd t2, 16(sp)
                    sd t3, 24(sp)
                    csrr t0, mcause
                    bltz t0, timer_interrupt
                    li t1, 13
                    beq t0, t1, page_fault
                    li t1, 12
                    beq t0, t1, enter_machine
                    csrr t1, mepc
                    li t2, RETURNS_FROM
                    bltu t1, t2, system_call
                    li t2, 9
                    beq t0, t2, back
                    li t2, 3
                    beq t0, t2, back
                    li t2, 2
                    beq t0, t2, back
                    li t2, 11
                    beq t0, t2, back
                system_call:
                    li t1, 8
                    beq t0, t1, dispatch
                    li t1, 9
                    bne t0, t1, fatal
                dispatch:
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
                page_fault:
                    csrr t1, mtval
                    li t2, FAULT_PAGE
                    li t3, FAULT_PTE
                    beq t1, t2, fault_first
                    li t2, 0x1000
                    li t3, FAULT_PAGE
                    add t2, t2, t3
                    li t3, FAULT_PTE
                    bne t1, t2, fatal
                    sd zero, 0(t3)
                    li t1, FAULT_LEAF1
                    sd t1, 8(t3)
                    j fault_mapped
                fault_first:
                    li t1, FAULT_LEAF0
                    sd t1, 0(t3)
                    sd zero, 8(t3)
                fault_mapped:
                    sfence.vma zero, zero
                    j restore
                enter_machine:
                    csrr t1, mepc
                    li t2, MCODE_START
                    bltu t1, t2, fatal
                    li t2, MCODE_END
                    bgeu t1, t2, fatal
                    li t2, MCODE_OFFSET
                    add t1, t1, t2
                    csrw mepc, t1
                    sd ra, 32(sp)
                    lla ra, leave_machine
                    li t1, 0x1800
                    csrs mstatus, t1
                    j restore
                leave_machine:
                    csrrw sp, mscratch, sp
                    sd t0, 0(sp)
                    ld ra, 32(sp)
                    csrw mepc, ra
                    li t0, 0x1800
                    csrc mstatus, t0
                    li t0, 0x800
                    csrs mstatus, t0
                    ld t0, 0(sp)
                    csrrw sp, mscratch, sp
                    mret
                timer_interrupt:
                    li t1, -1
                    csrw stimecmp, t1
                    j restore
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
                restore:
                    ld t0, 0(sp)
                    ld t1, 8(sp)
                    ld t2, 16(sp)
                    ld t3, 24(sp)
                    csrrw sp, mscratch, sp
                    mret
                .balign 4096
                supervisor_trap:
                    csrrw t0, sscratch, t0
                    csrr t0, scause
                    addi t0, t0, -STORE_FAULT
                    bnez t0, supervisor_fatal
                    csrr t0, sepc
                    addi t0, t0, 4
                    csrw sepc, t0
                    csrrw t0, sscratch, t0
                    sret
                supervisor_fatal:
                    csrw sepc, zero
                    sret
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
