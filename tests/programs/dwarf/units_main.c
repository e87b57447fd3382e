/* Two compile units for the debug-information tests: this one holds main (in .text.startup, so
   gcc gives the unit DW_AT_ranges); units_lib.c is one contiguous range (DW_AT_low_pc/high_pc)
   of several functions, only some of which move. */
#include <stdio.h>
#include <stdlib.h>

long scale(long v, int times);
long checksum(const int *values, int count);
int pick(int v);

int main(int argc, char **argv) {
    int values[64];
    int n = argc > 1 ? atoi(argv[1]) : 40;
    for (int i = 0; i < 64; i++) values[i] = pick(i * 7 + n);
    printf("scale=%ld checksum=%ld\n", scale(n, 5), checksum(values, 64));
    return 0;
}
