# Signals delivered between blocks: the program installs a SIGUSR1 handler (rt_sigaction), sends
# itself SIGUSR1 three times with kill(getpid()), and exits with the number of times the handler
# ran (3). QEMU delivers each signal when the kill ecall returns: control goes from the ecall to the
# handler (no branch), the handler returns into QEMU's sigreturn trampoline, whose rt_sigreturn
# ecall resumes after the kill (no branch either).
    .text
    .globl  _start
    .type   _start, @function
_start:
    li      a0, 10              # SIGUSR1
    la      a1, action
    li      a2, 0
    li      a3, 8               # sizeof(sigset_t)
    li      a7, 134             # rt_sigaction
    ecall
    li      s0, 3
1:  li      a7, 172             # getpid
    ecall
    li      a1, 10
    li      a7, 129             # kill
    ecall
    addi    s0, s0, -1
    bnez    s0, 1b
    la      t0, handled
    ld      a0, 0(t0)
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start

    .type   handler, @function
handler:
    la      t0, handled
    ld      t1, 0(t0)
    addi    t1, t1, 1
    sd      t1, 0(t0)
    ret
    .size   handler, .-handler

    .data
    .p2align 3
action:                         # struct sigaction: handler, flags, mask
    .dword  handler
    .dword  0
    .dword  0
handled:
    .dword  0
