# Loads by cache level (issue 12, weigh predict): cyclic sweeps over a buffer, one `ld` for each
# 64-byte cache line, known by construction. Usage: line_sweep KB PASSES (decimal). The buffer
# (KB KiB, mmapped) is read PASSES times in address order; the loop keeps everything else in
# registers, so besides the argument parsing's byte loads the run loads KB * 16 * PASSES times.
    .text
    .globl  _start
    .type   _start, @function
_start:
    ld      t0, 16(sp)          # argv[1]: KB
    jal     ra, number
    mv      s2, a0
    ld      t0, 24(sp)          # argv[2]: passes
    jal     ra, number
    mv      s3, a0
    li      a0, 0               # mmap(0, KB * 1024, RW, PRIVATE | ANONYMOUS, -1, 0)
    slli    a1, s2, 10
    mv      s4, a1
    li      a2, 3
    li      a3, 0x22
    li      a4, -1
    li      a5, 0
    li      a7, 222
    ecall
    mv      s5, a0
    li      s6, 0
pass:
    beqz    s3, done
    mv      t0, s5
    add     t1, s5, s4
sweep:
    ld      t2, 0(t0)
    add     s6, s6, t2
    addi    t0, t0, 64
    bltu    t0, t1, sweep
    addi    s3, s3, -1
    j       pass
done:
    andi    a0, s6, 1
    li      a7, 93
    ecall
number:                         # a0 = decimal string at t0
    li      a0, 0
    li      t3, 10
1:  lbu     t1, 0(t0)
    beqz    t1, 2f
    addi    t1, t1, -48
    mul     a0, a0, t3
    add     a0, a0, t1
    addi    t0, t0, 1
    j       1b
2:  ret
