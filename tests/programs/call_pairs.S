# Calls and tail calls that the linker may not relax (.option norelax): auipc+jalr pairs, as
# `call` and `tail` expand to, so that point selection (call:, exit:) and insertion meet the
# pc-relative pairs a program linked without relaxation holds. `run` calls twice (3 -> 6), then
# plus_one_tail, which leaves by a tail call to plus_one (6 -> 7). Exit status: 7.
    .text
    .option norelax
    .globl  _start
    .type   _start, @function
_start:
    li      a0, 3
    call    run                 # auipc ra; jalr ra
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start

    .globl  run
    .type   run, @function
run:
    addi    sp, sp, -16
    sd      ra, 8(sp)
    call    twice
    call    plus_one_tail
    ld      ra, 8(sp)
    addi    sp, sp, 16
    ret
    .size   run, .-run

    .globl  twice
    .type   twice, @function
twice:
    add     a0, a0, a0
    ret
    .size   twice, .-twice

    .globl  plus_one_tail
    .type   plus_one_tail, @function
plus_one_tail:
    tail    plus_one            # auipc t1; jr t1
    .size   plus_one_tail, .-plus_one_tail

    .globl  plus_one
    .type   plus_one, @function
plus_one:
    addi    a0, a0, 1
    ret
    .size   plus_one, .-plus_one
