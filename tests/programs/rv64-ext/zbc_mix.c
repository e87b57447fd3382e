/* Carry-less multiplication (Zbc) in a loop: built with -march=rv64gc_zbc, so its Tag_RISCV_arch
 * names zbc; QEMU 7.2's default rv64 CPU runs Zbc. For disasm's choice of extensions and for
 * write-back of functions that use the instructions of issue 14. */
#include <stdio.h>

__attribute__((noinline)) unsigned long mix(unsigned long a, unsigned long b, int n) {
    unsigned long acc = 0;
    for (int i = 0; i < n; i++) {
        unsigned long r;
        __asm__ volatile("clmul %0, %1, %2" : "=r"(r) : "r"(a + i), "r"(b));
        acc ^= r;
        __asm__ volatile("clmulh %0, %1, %2" : "=r"(r) : "r"(acc), "r"(b + i));
        acc += r;
    }
    return acc;
}

int main(void) {
    printf("%lx\n", mix(0x123456789abcdefUL, 0xfedcba987654321UL, 1000));
    return 0;
}
