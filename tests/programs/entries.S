# Hand-written RISC-V: a function with a secondary global entry point, compressed and full-size
# forms side by side, a local loop and a call. Exit status: 42 when the code runs as written.
    .option rvc
    .text
    .globl  accumulate
    .type   accumulate, @function
# a0 = n; returns 1 + 2 + ... + n, through the second entry with a1 = 0 as the start value.
accumulate:
    li      a1, 0
    .globl  accumulate_from
accumulate_from:
    beqz    a0, 2f
1:  add     a1, a1, a0
    addi    a0, a0, -1
    .option push
    .option norvc
    bnez    a0, 1b
    .option pop
2:  mv      a0, a1
    ret
    .size   accumulate, .-accumulate

    .globl  _start
    .type   _start, @function
_start:
    li      a0, 6
    call    accumulate          # 21
    mv      s0, a0
    li      a0, 5
    li      a1, 6
    call    accumulate_from     # 6 + 15 = 21
    add     a0, a0, s0          # 42
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start
