/* window BYTES WINDOWS STEPS MODE: per window, MODE 0: nothing; 1: evict (a pass over 64 MB);
 * 2: evict, then a sequential pass over the ring (one load per line); then a timed dependent chase of
 * STEPS steps from a random line. Prints ns per step (thread CPU time of the windows only). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(int argc, char **argv) {
    size_t lines = strtoull(argv[1], 0, 0) / 64;
    int windows = atoi(argv[2]); long steps = atol(argv[3]); int mode = atoi(argv[4]);
    uint64_t *ring = aligned_alloc(64, lines * 64);
    size_t *perm = malloc(lines * sizeof(size_t));
    for (size_t i = 0; i < lines; i++) perm[i] = i;
    uint64_t r = 88172645463325252ull;
    for (size_t i = lines - 1; i > 0; i--) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; size_t j = r % i; size_t t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    for (size_t i = 0; i < lines; i++) ring[perm[i] * 8] = (uint64_t)&ring[perm[(i + 1) % lines] * 8];
    size_t evict_n = (64u << 20) / 8; uint64_t *evict = malloc(evict_n * 8);
    for (size_t i = 0; i < evict_n; i += 8) evict[i] = i;
    double total = 0; uint64_t sink = 0;
    for (int w = 0; w < windows; w++) {
        if (mode >= 1) for (size_t i = 0; i < evict_n; i += 8) sink += evict[i];
        if (mode == 2) for (size_t i = 0; i < lines; i++) sink += ring[i * 8];
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        uint64_t *p = &ring[(r % lines) * 8];
        double t0 = now();
        for (long s = 0; s < steps; s++) p = (uint64_t *)*p;
        total += now() - t0;
        sink += (uint64_t)p;
    }
    printf("%.2f ns/step (sink %llu)\n", total / windows / steps, (unsigned long long)(sink & 1));
    return 0;
}
