/*
 * A bare-metal program for qemu-system-riscv64 -machine virt -bios none (issue 13: the system-mode
 * catalog's test). Known loop counts, checked exactly by WeighCatalogSystemTest:
 *   M-mode: 100 x (csrr mstatus; csrw mscratch)
 *   S-mode under Sv39 (an identity gigapage): 50 x (ecall to M and back by mret; csrr sscratch),
 *   10 x (sfence.vma; ld), one illegal instruction (csrw cycle) returned from by M,
 *   then exit through virt's test device (ecall with a7 = 93).
 * The M-mode trap handler uses t5 and t6 only; the program keeps a7 at 0 until its exit.
 */
    .section .text.init, "ax"
    .globl _start
_start:
    lla t0, mtrap
    csrw mtvec, t0
    li a7, 0
    li s0, 100
1:  csrr t1, mstatus
    csrw mscratch, t1
    addi s0, s0, -1
    bnez s0, 1b
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0
    lla t0, root
    srli t0, t0, 12
    li t1, 8
    slli t1, t1, 60
    or t0, t0, t1
    csrw satp, t0
    sfence.vma
    li t0, 0x1800
    csrc mstatus, t0
    li t0, 0x800
    csrs mstatus, t0
    lla t0, s_main
    csrw mepc, t0
    mret
s_main:
    li s0, 50
2:  ecall
    csrr t1, sscratch
    addi s0, s0, -1
    bnez s0, 2b
    lla t2, value
    li s0, 10
3:  sfence.vma
    ld t1, 0(t2)
    addi s0, s0, -1
    bnez s0, 3b
    csrw cycle, zero
    li a0, 0
    li a7, 93
    ecall

    .p2align 2
mtrap:
    li t6, 93
    beq a7, t6, exit
    csrr t6, mepc
    addi t6, t6, 4
    csrw mepc, t6
    mret
exit:
    li t6, 0x5555
    li t5, 0x100000
    sw t6, 0(t5)
4:  j 4b

    .data
    .p2align 12
/* Sv39 root table: entry 2 maps the gigapage at 0x80000000 onto itself, R W X, accessed and dirty. */
root:
    .dword 0, 0, 0x200000cf
    .fill 509, 8, 0
value:
    .dword 42
