# Two threads whose control flow does not depend on timing, for exact per-thread traces: the main
# thread starts a second thread (clone with CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
# CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID), each runs `work`
# (a loop with a branch taken every fourth iteration) a different number of times, and the main
# thread waits once, without a loop, for the second thread's exit (the tid word is cleared and
# woken when it exits; if it is already clear the wait returns at once), then exits with status 7.
    .text
    .globl  _start
    .type   _start, @function
_start:
    li      a0, 0x350f00        # clone flags
    la      a1, stack_top       # the new thread's stack (unused: work is a leaf)
    la      a2, child_tid       # parent_tid: set to the new thread's id before clone returns
    li      a3, 0
    la      a4, child_tid       # child_tid: cleared and woken when the thread exits
    li      a7, 220             # clone
    ecall
    beqz    a0, thread
    mv      s1, a0              # the second thread's id
    li      a0, 300
    call    work
    la      a0, child_tid
    li      a1, 0               # FUTEX_WAIT while child_tid still holds the id
    mv      a2, s1
    li      a3, 0
    li      a7, 98              # futex
    ecall
    li      a0, 7
    li      a7, 94              # exit_group
    ecall
thread:
    li      a0, 1000
    call    work
    li      a0, 0
    li      a7, 93              # exit (this thread only)
    ecall
    .size   _start, .-_start

    .type   work, @function
work:                           # a0 iterations
    li      t0, 0
1:  andi    t1, t0, 3
    bnez    t1, 2f
    addi    t2, t2, 1
2:  addi    t0, t0, 1
    blt     t0, a0, 1b
    ret
    .size   work, .-work

    .bss
    .p2align 4
child_tid:
    .space  16
stack:
    .space  4096
stack_top:
