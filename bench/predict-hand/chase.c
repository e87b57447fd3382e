/* chase BYTES STEPS WORK CHAINS: CHAINS interleaved dependent walks over one random cycle of
 * uint32 indices (BYTES of them), WORK off-chain ALU ops per step (on the loaded value). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
int main(int argc, char **argv) {
    size_t n = strtoull(argv[1], 0, 0) / 4;
    long steps = atol(argv[2]); int work = atoi(argv[3]); int chains = atoi(argv[4]);
    uint32_t *a = malloc(n * 4);
    for (size_t i = 0; i < n; i++) a[i] = i;
    uint64_t r = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) { /* Sattolo: one cycle */
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        size_t j = r % i; uint32_t t = a[i]; a[i] = a[j]; a[j] = t;
    }
    uint32_t p[8]; for (int c = 0; c < chains; c++) p[c] = (uint32_t)(c * (n / chains));
    uint64_t acc = 0;
    for (long s = 0; s < steps; s++) {
        for (int c = 0; c < chains; c++) {
            uint32_t v = a[p[c]]; p[c] = v;
            for (int k = 0; k < work; k++) acc = (acc << 1) ^ (v >> k & 0xff) ^ k;
        }
    }
    printf("%llu %u\n", (unsigned long long)acc, p[0]);
    return 0;
}
