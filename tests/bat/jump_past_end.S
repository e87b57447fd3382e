# RISC-V functions with a direct branch, jump or call to their own end while padding (code after
# the symbol's size, without a symbol) follows: BOLT's "jump past end", replaced with a nop.
# perf2bolt-22 then ignores branch records from there; PlainBinaryTranslationTest checks that
# Splice does too. Offsets are written as .+N so that no label becomes a symbol.
    .text
    .globl f
    .type f, @function
    .p2align 2
f:
    beq a0, a1, .+8          # f+0 -> f+8, the end
    addi a0, a0, 1           # f+4
    ret                      # f+6
    .size f, .-f
    nop                      # padding
    nop
    ret

    .p2align 4
    .globl g
    .type g, @function
g:
    addi sp, sp, -16         # g+0
    sd ra, 8(sp)             # g+2
    jal ra, .+10             # g+4 -> g+14, the end (a call into the padding)
    ld ra, 8(sp)             # g+8
    addi sp, sp, 16          # g+10
    ret                      # g+12
    .size g, .-g
    addi a0, a0, 2           # padding, called above
    ret

    .p2align 4
    .globl _start
    .type _start, @function
_start:
    li a0, 0
    li a1, 1
    call f
    call g
    li a7, 93
    ecall
    .size _start, .-_start
