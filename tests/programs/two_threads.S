# A process with two threads: the main thread starts a second thread (clone with CLONE_VM |
# CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM) that sets a flag and
# exits; the main thread waits for the flag and exits the process with status 7.
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
    li      a0, 7
    li      a7, 94              # exit_group
    ecall
thread:
    la      t0, flag
    li      t1, 1
    sw      t1, 0(t0)
    li      a0, 0
    li      a7, 93              # exit (this thread only)
    ecall
    .size   _start, .-_start

    .bss
    .p2align 4
flag:
    .space  16
stack:
    .space  4096
stack_top:
