# Exact instruction counting: a loop whose dynamic instruction count is known by construction.
# Usage: count_loop N (decimal, default 0). The loop body is 5 instructions and runs N times;
# parsing costs 7 instructions per digit, so for N of equal digit count the executed-instruction
# count is linear in N with slope exactly 5. Exit status: a function of the loop's result.
    .text
    .globl  _start
    .type   _start, @function
_start:
    ld      a0, 0(sp)           # argc
    li      s0, 0               # N
    li      s1, 0
    li      s2, 0
    li      s3, 0
    li      t2, 2
    blt     a0, t2, run         # no argument: N = 0
    ld      t0, 16(sp)          # argv[1]
    li      t3, 10
parse:                          # 7 instructions per digit, 2 for the terminating NUL
    lbu     t1, 0(t0)
    beqz    t1, run
    addi    t1, t1, -48
    mul     s0, s0, t3
    add     s0, s0, t1
    addi    t0, t0, 1
    j       parse
run:
    beqz    s0, done
    .globl  loop_body
loop_body:                      # 5 instructions per iteration
    addi    s1, s1, 3
    xor     s2, s2, s1
    add     s3, s3, s2
    addi    s0, s0, -1
    bnez    s0, loop_body
done:
    andi    a0, s3, 0x7f        # read the loop's result: TCG must not drop the loop
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start
