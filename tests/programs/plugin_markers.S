# Marker windows for the Splice QEMU plugin (validation and timing modes).
# Start marker: slti x0, x0, 0x5a1 (0x5a102013); stop marker: slti x0, x0, 0x5a0 (0x5a002013);
# both are HINTs (rd = x0) and execute as no-ops. The program runs, in order:
#   1. five windows "straight": 4 x `addi t1, t1, 1` (32-bit), 2 x `c.addi t2, 1`, 1 x `mul t3, t1, t2`
#   2. one window "inner loop": `addi t4, t4, -1` and `bnez t4` executed 7 times each, after
#      `li t4, 7` (a 32-bit addi t4, zero, 7)
#   3. a nested start (start, start, `addi t5, t5, 5`, stop): one window, nested_starts = 1
#   4. a stop without a start: inactive_stops = 1
#   5. two windows "fresh call" that call `fresh`, first executed inside the first of them:
#      that window contains translations, the second not
# and exits with status 0.
    .macro  start_marker
    slti    x0, x0, 0x5a1
    .endm
    .macro  stop_marker
    slti    x0, x0, 0x5a0
    .endm

    .option rvc
    .text
    .globl  _start
    .type   _start, @function
_start:
    li      s0, 5
1:  start_marker
    .option push
    .option norvc
    addi    t1, t1, 1
    addi    t1, t1, 1
    addi    t1, t1, 1
    addi    t1, t1, 1
    .option pop
    c.addi  t2, 1
    c.addi  t2, 1
    .option push
    .option norvc
    mul     t3, t1, t2
    .option pop
    stop_marker
    .option push
    .option norvc
    addi    s0, s0, -1
    bnez    s0, 1b
    .option pop

    start_marker
    .option push
    .option norvc
    li      t4, 7
2:  addi    t4, t4, -1
    bnez    t4, 2b
    .option pop
    stop_marker

    start_marker
    start_marker
    .option push
    .option norvc
    addi    t5, t5, 5
    .option pop
    stop_marker

    stop_marker

    li      s0, 2
3:  start_marker
    .option push
    .option norvc
    jal     ra, fresh
    .option pop
    stop_marker
    .option push
    .option norvc
    addi    s0, s0, -1
    bnez    s0, 3b
    .option pop

    add     a0, t1, t2          # read the results so that nothing is dead
    add     a0, a0, t3
    add     a0, a0, t4
    add     a0, a0, t5
    add     a0, a0, a1
    li      a0, 0
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start

    .p2align 6
    .type   fresh, @function
fresh:
    .option push
    .option norvc
    addi    a1, a1, 9
    ret
    .option pop
    .size   fresh, .-fresh
