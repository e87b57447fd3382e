# A process that forks: the child runs a loop of 1000 iterations and exits with status 3; the
# parent waits for it and exits with status 5. The parent executes exactly 15 instructions
# (counted below), whatever the child does: the plugin's count is the parent's alone.
    .text
    .globl  _start
    .type   _start, @function
_start:
    li      a0, 17              # 1  clone(SIGCHLD, 0, 0, 0, 0): a fork
    li      a1, 0               # 2
    li      a2, 0               # 3
    li      a3, 0               # 4
    li      a4, 0               # 5
    li      a7, 220             # 6
    ecall                       # 7
    beqz    a0, child           # 8
    li      a0, -1              # 9  wait4(-1, NULL, 0, NULL)
    li      a1, 0               # 10
    li      a7, 260             # 11 (a2 and a3 are still 0)
    ecall                       # 12
    li      a0, 5               # 13 exit(5)
    li      a7, 93              # 14
    ecall                       # 15
child:
    li      t0, 1000
1:  addi    t0, t0, -1
    bnez    t0, 1b
    li      a0, 3
    li      a7, 93
    ecall
    .size   _start, .-_start
