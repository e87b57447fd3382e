/* Runs raw RISC-V machine code from a file as one of the functions of loops.c, on the same data:
 *   runcode CODE_FILE hot_loop [N]   prints hot_loop=...
 *   runcode CODE_FILE fib [N]        prints fib=...
 * The listing tests use it to execute edited, reassembled functions under qemu-riscv64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: runcode CODE_FILE hot_loop|fib [N]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static unsigned char buffer[1 << 20];
    size_t size = fread(buffer, 1, sizeof buffer, f);
    fclose(f);
    void *code = mmap(NULL, size + 1, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    memcpy(code, buffer, size);
    __builtin___clear_cache((char *)code, (char *)code + size);
    if (strcmp(argv[2], "fib") == 0) {
        long (*fib)(int) = (long (*)(int))code;
        printf("fib=%ld\n", fib(argc > 3 ? atoi(argv[3]) : 20));
        return 0;
    }
    int n = argc > 3 ? atoi(argv[3]) : 1000;
    int *data = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        data[i] = (i * 2654435761u) >> 7;
    }
    long (*hot_loop)(const int *, int) = (long (*)(const int *, int))code;
    printf("hot_loop=%ld\n", hot_loop(data, n));
    return 0;
}
