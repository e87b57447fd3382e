# A program that dies of SIGSEGV: it loads from address 0.
    .text
    .globl  _start
    .type   _start, @function
_start:
    li      a0, 0
    ld      a1, 0(a0)
    li      a7, 93              # not reached
    ecall
    .size   _start, .-_start
