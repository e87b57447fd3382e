/* The bundled example: a hot loop, a switch that compiles to a jump table, recursion and
 * function pointers. Prints a checksum so that any change in behaviour is visible. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long hot_loop(const int *data, int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
        sum += (long)data[i] * (i & 7) + (data[i] >> 2);
    }
    return sum;
}

__attribute__((noinline)) int classify(int x) {
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

__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static long twice(long v) { return 2 * v; }
static long square(long v) { return v * v; }
static long negate(long v) { return -v; }
long (*const operations[])(long) = {twice, square, negate};

__attribute__((noinline)) long apply_all(long v) {
    long acc = 0;
    for (unsigned i = 0; i < sizeof operations / sizeof operations[0]; i++) {
        acc += operations[i](v + i);
    }
    return acc;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *data = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        data[i] = (i * 2654435761u) >> 7;
    }
    long classes = 0;
    for (int i = 0; i < n; i++) {
        classes += classify(data[i]);
    }
    printf("hot_loop=%ld classify=%ld fib=%ld apply=%ld\n", hot_loop(data, n), classes, fib(20),
           apply_all(n));
    free(data);
    return (int)(classes & 0x3f);
}
