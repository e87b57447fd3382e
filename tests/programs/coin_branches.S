# Branch directions a predictor can and cannot foresee (issue 12: the catalog's model of the host's
# branch predictor). Usage: coin_branches [coin]. A loop of 1,000,000 iterations advances a linear
# congruential generator (x = a*x + 1 mod 2^64) and branches on one of its bits: without an argument
# on the lowest bit, which alternates from one iteration to the next (a period any history predictor
# learns), with one on the top bit (a fair coin: mispredicted half the time by any predictor). The
# loop's other conditional branch (the counter's) is taken every time but the last.
    .text
    .globl  _start
    .type   _start, @function
_start:
    ld      a0, 0(sp)           # argc
    li      s0, 1000000         # iterations
    li      s1, 0               # the generator's state
    li      s2, 0               # heads
    li      s3, 0x5851f42d4c957f2d
    li      s4, 0               # shift of the lowest bit
    li      t2, 2
    blt     a0, t2, loop
    li      s4, 63              # with an argument: the top bit
loop:
    mul     s1, s1, s3
    addi    s1, s1, 1
    srl     t0, s1, s4
    andi    t0, t0, 1
    beqz    t0, tails
    addi    s2, s2, 1
tails:
    addi    s0, s0, -1
    bnez    s0, loop
    andi    a0, s2, 0x7f        # read the result: TCG must not drop the loop
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start
