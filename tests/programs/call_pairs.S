# Calls and tail calls that the linker may not relax (.option norelax): auipc+jalr pairs, as
# `call` and `tail` expand to, so that point selection (call:, exit:) and insertion meet the
# pc-relative pairs a program linked without relaxation holds. Exit status: 3 * 2 + 1 = 7.
    .text
    .globl  _start
    .type   _start, @function
_start:
    .option push
    .option norelax
    li      a0, 3
    call    twice               # auipc ra; jalr ra
    call    plus_one_tail       # ... which leaves by a tail call (auipc t1; jr t1)
    li      a7, 93              # exit
    ecall
    .option pop
    .size   _start, .-_start

    .globl  twice
    .type   twice, @function
twice:
    add     a0, a0, a0
    ret
    .size   twice, .-twice

    .globl  plus_one_tail
    .type   plus_one_tail, @function
plus_one_tail:
    .option push
    .option norelax
    tail    plus_one
    .option pop
    .size   plus_one_tail, .-plus_one_tail

    .globl  plus_one
    .type   plus_one, @function
plus_one:
    addi    a0, a0, 1
    ret
    .size   plus_one, .-plus_one
