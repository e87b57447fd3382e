# RISC-V for the BAT tests: a function with a second global, typed entry point (BOLT records it as
# a secondary entry point), two identical functions that ICF folds, and a loop with a rarely taken
# exit. Exit status: 42 when the code runs as written.
    .text
    .globl  accumulate
    .type   accumulate, @function
# a0 = n; returns 1 + 2 + ... + n, through the second entry with a1 = 0 as the start value.
accumulate:
    li      a1, 0
    .globl  accumulate_from
    .type   accumulate_from, @function
accumulate_from:
    beqz    a0, 2f
    li      t0, 1000000
1:  add     a1, a1, a0
    bgtu    a1, t0, 3f
    addi    a0, a0, -1
    bnez    a0, 1b
2:  mv      a0, a1
    ret
3:  li      a0, -1
    ret
    .size   accumulate, .-accumulate

    .globl  twin_a
    .type   twin_a, @function
twin_a:
    slli    a1, a0, 1
    add     a0, a0, a1
    addi    a0, a0, 3
    bgez    a0, 1f
    neg     a0, a0
1:  ret
    .size   twin_a, .-twin_a

    .globl  twin_b
    .type   twin_b, @function
twin_b:
    slli    a1, a0, 1
    add     a0, a0, a1
    addi    a0, a0, 3
    bgez    a0, 1f
    neg     a0, a0
1:  ret
    .size   twin_b, .-twin_b

    .globl  _start
    .type   _start, @function
_start:
    li      a0, 6
    call    accumulate          # 21
    mv      s0, a0
    li      a0, 5
    li      a1, 6
    call    accumulate_from     # 6 + 15 = 21
    add     s0, s0, a0          # 42
    li      a0, 1
    call    twin_a              # 6
    sub     s0, s0, a0
    li      a0, 1
    call    twin_b              # 6
    add     a0, a0, s0          # 42
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start
