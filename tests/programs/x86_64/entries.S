# x86-64: a function with a secondary global entry point, two identical functions that ICF can
# fold, and a loop with a rarely taken branch, so that BOLT splits, folds and reorders.
# Exit status: 42 when the code runs as written.
    .text
    .globl  accumulate
    .type   accumulate, @function
# rdi = n; returns 1 + 2 + ... + n, through the second entry with rsi = 0 as the start value.
accumulate:
    xorl    %esi, %esi
    .globl  accumulate_from
    .type   accumulate_from, @function
accumulate_from:
    testq   %rdi, %rdi
    je      2f
1:  addq    %rdi, %rsi
    cmpq    $1000000, %rsi
    ja      3f
    decq    %rdi
    jne     1b
2:  movq    %rsi, %rax
    ret
3:  movq    $-1, %rax
    ret
    .size   accumulate, .-accumulate

    .globl  twin_a
    .type   twin_a, @function
twin_a:
    leaq    3(%rdi,%rdi,2), %rax
    testq   %rax, %rax
    jns     1f
    negq    %rax
1:  ret
    .size   twin_a, .-twin_a

    .globl  twin_b
    .type   twin_b, @function
twin_b:
    leaq    3(%rdi,%rdi,2), %rax
    testq   %rax, %rax
    jns     1f
    negq    %rax
1:  ret
    .size   twin_b, .-twin_b

    .globl  main
    .type   main, @function
main:
    pushq   %rbx
    movq    $6, %rdi
    call    accumulate          # 21
    movq    %rax, %rbx
    movq    $5, %rdi
    movq    $6, %rsi
    call    accumulate_from     # 6 + 15 = 21
    addq    %rax, %rbx          # 42
    movq    $1, %rdi
    call    twin_a              # 6
    subq    %rax, %rbx
    movq    $1, %rdi
    call    twin_b              # 6
    addq    %rbx, %rax          # 42
    popq    %rbx
    ret
    .size   main, .-main
    .section .note.GNU-stack,"",@progbits
