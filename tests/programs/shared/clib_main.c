/* Loads libsplice_c.so (clib.c): calls its functions through the PLT, through pointers it hands
 * out and reads its exported data. Prints a checksum so that any change in behaviour is visible. */
#include <stdio.h>
#include <stdlib.h>
#include "clib.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *data = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        data[i] = (i * 2654435761u) >> 7;
    }
    long classes = 0;
    for (int i = 0; i < n; i++) {
        classes += lib_classify(data[i]);
    }
    long ops = 0;
    for (int i = 0; i < 16; i++) {
        ops += lib_operation(i)(n + i) + lib_dispatch(i, n - i);
    }
    long (*direct)(long) = lib_apply;
    printf("checksum=%ld classify=%ld ops=%ld apply=%ld same=%d calls=%d\n", lib_checksum(data, n), classes, ops,
           direct(n), direct == lib_operation(3), lib_calls);
    free(data);
    return (int)(classes & 0x3f);
}
