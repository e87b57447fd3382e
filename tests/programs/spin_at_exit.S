# A thread still running when the process exits: the main thread starts a second thread (clone
# with CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM) that sets
# a flag and then loops forever; the main thread waits for the flag, counts down from 100000 and
# calls exit_group with status 7 while the other thread spins. The plugin's trace mode must end
# both threads' traces where they were (QEMU stops them before the exit hook).
    .text
    .globl  _start
    .type   _start, @function
_start:
    li      a0, 0x50f00         # clone flags
    la      a1, stack_top       # the new thread's stack
    li      a2, 0
    li      a3, 0
    li      a4, 0
    li      a7, 220             # clone
    ecall
    beqz    a0, thread
    la      t0, flag
1:  lw      t1, 0(t0)           # wait for the thread's flag
    beqz    t1, 1b
    li      t2, 100000
2:  addi    t2, t2, -1
    bnez    t2, 2b
    li      a0, 7
    li      a7, 94              # exit_group
    ecall
thread:
    la      t0, flag
    li      t1, 1
    sw      t1, 0(t0)
3:  addi    t3, t3, 1           # spin: two back edges, one taken 7 times in 8
    andi    t4, t3, 7
    bnez    t4, 3b
    j       3b
    .size   _start, .-_start

    .data
flag:
    .word   0

    .bss
    .balign 16
    .space  65536
stack_top:
