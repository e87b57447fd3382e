# Block exits by page (issue 12, weigh predict): a ring of jumps over eight pages, known by
# construction. Usage: page_ring N (decimal, default 1). Each of the N rounds runs `j` from the
# start of page k to the start of page k + 1 (k = 0..6: seven exits to another page), then on page 7
# `addi` and `bnez` back to the end of page 6 (a branch whose taken exit is on another page), whose
# `j` returns to page 0 (another page). The last round's `bnez` falls through on its own page.
    .text
    .globl  _start
    .type   _start, @function
_start:
    ld      a0, 0(sp)           # argc
    li      s1, 1
    li      t2, 2
    blt     a0, t2, ring
    ld      t0, 16(sp)          # argv[1]
    li      s1, 0
    li      t3, 10
parse:
    lbu     t1, 0(t0)
    beqz    t1, ring
    addi    t1, t1, -48
    mul     s1, s1, t3
    add     s1, s1, t1
    addi    t0, t0, 1
    j       parse
ring:
    j       page0
    .balign 4096
page0:
    j       page1
    .balign 4096
page1:
    j       page2
    .balign 4096
page2:
    j       page3
    .balign 4096
page3:
    j       page4
    .balign 4096
page4:
    j       page5
    .balign 4096
page5:
    j       page6
    .balign 4096
page6:
    j       page7
    .skip   4096 - 8
back:                           # the last 4 bytes of page 6
    j       page0
page7:
    addi    s1, s1, -1
    bnez    s1, back
    li      a0, 0
    li      a7, 93
    ecall
