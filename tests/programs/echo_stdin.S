# Standard streams and arguments for `splice run`: copies stdin to stdout, writes each argument
# (argv[1..]) on its own line to stderr, and exits with the number of stdin bytes modulo 256.
    .text
    .globl  _start
    .type   _start, @function
_start:
    ld      s0, 0(sp)           # argc
    addi    s1, sp, 16          # &argv[1]
    li      s2, 1
args:
    bge     s2, s0, copy
    ld      a1, 0(s1)           # the argument
    mv      a2, a1
1:  lbu     t0, 0(a2)           # its length
    beqz    t0, 2f
    addi    a2, a2, 1
    j       1b
2:  li      t0, 10              # replace the NUL by a newline for the write
    sb      t0, 0(a2)
    sub     a2, a2, a1
    addi    a2, a2, 1
    li      a0, 2
    li      a7, 64              # write
    ecall
    addi    s1, s1, 8
    addi    s2, s2, 1
    j       args
copy:
    li      s3, 0               # bytes copied
3:  li      a0, 0
    la      a1, buffer
    li      a2, 256
    li      a7, 63              # read
    ecall
    blez    a0, done
    add     s3, s3, a0
    mv      a2, a0
    li      a0, 1
    la      a1, buffer
    li      a7, 64              # write
    ecall
    j       3b
done:
    andi    a0, s3, 0xff
    li      a7, 93              # exit
    ecall
    .size   _start, .-_start

    .bss
buffer:
    .space  256
