/* A shared library for the write-back of dynamic binaries: exported functions called through the
 * PLT (also from inside the library), a table of function pointers (R_RISCV_RELATIVE and
 * R_RISCV_64 dynamic relocations), a jump table, a computed goto, a constructor (init_array) and
 * a destructor, and exported data written by the functions. */
#include <stdio.h>
#include "clib.h"

int lib_calls;
static long constructed;

__attribute__((constructor)) static void lib_init(void) { constructed = 42; }
__attribute__((destructor)) static void lib_fini(void) { fflush(stdout); }

__attribute__((noinline)) long lib_checksum(const int *data, int n) {
    long sum = constructed;
    lib_calls++;
    for (int i = 0; i < n; i++) {
        sum += (long)data[i] * (i & 7) + (data[i] >> 2);
    }
    return sum;
}

__attribute__((noinline)) int lib_classify(int x) {
    lib_calls++;
    switch (x % 9) {
    case 0: return 11;
    case 1: return x * 3;
    case 2: return x - 7;
    case 3: return x ^ 0x55;
    case 4: return x / 3;
    case 5: return -x;
    case 6: return x << 2;
    case 7: return x + 100;
    default: return 1;
    }
}

static long twice(long v) { return 2 * v; }
static long square(long v) { return v * v; }
static long negate(long v) { return -v; }
/* Local functions (R_RISCV_RELATIVE) and an exported one (R_RISCV_64 against its symbol). */
long (*const lib_operations[])(long) = {twice, square, negate, lib_apply};

long lib_apply(long v) { return v + 1; }

__attribute__((noinline)) long (*lib_operation(int i))(long) { return lib_operations[i % 4]; }

/* A computed goto: label addresses in data, relocated by R_RISCV_RELATIVE. */
__attribute__((noinline)) long lib_dispatch(int op, long v) {
    static void *const labels[] = {&&add, &&mul, &&sub};
    lib_calls++;
    goto *labels[op % 3];
add:
    return v + 3;
mul:
    return v * 5;
sub:
    return v - lib_classify((int)v);
}
