// Loops that clang -O3 -march=rv64gcv vectorizes (strip-mined with vsetvli): integer and
// floating-point arithmetic, a reduction, a masked (conditional) update, widening, a strided
// access and byte copies. The output depends on every element, so a wrong rewrite shows.
#include <stdint.h>
#include <stdio.h>

#define N 1003

static int32_t a[N], b[N], c[N];
static float x[N], y[N];
static int16_t h[N];
static int64_t wide[N];
static uint8_t src[N], dst[N];

__attribute__((noinline)) void add_arrays(int32_t *restrict out, const int32_t *restrict p,
                                          const int32_t *restrict q, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = p[i] * 3 + q[i];
    }
}

__attribute__((noinline)) void saxpy(float *restrict out, const float *restrict in, float k, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = k * in[i] + out[i];
    }
}

__attribute__((noinline)) int64_t sum(const int32_t *p, int n) {
    int64_t s = 0;
    for (int i = 0; i < n; i++) {
        s += p[i];
    }
    return s;
}

__attribute__((noinline)) void clamp_negative(int32_t *p, int n) {
    for (int i = 0; i < n; i++) {
        if (p[i] < 0) {
            p[i] = -p[i] / 2;
        }
    }
}

__attribute__((noinline)) void widen(int64_t *restrict out, const int16_t *restrict in, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = (int64_t) in[i] * in[i];
    }
}

__attribute__((noinline)) void every_third(int32_t *restrict out, const int32_t *restrict in, int n) {
    for (int i = 0; i < n / 3; i++) {
        out[i] = in[3 * i] ^ in[3 * i + 1];
    }
}

__attribute__((noinline)) void copy_bytes(uint8_t *restrict out, const uint8_t *restrict in, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = (uint8_t) (in[i] + 7);
    }
}

int main(void) {
    for (int i = 0; i < N; i++) {
        a[i] = i * 7 - 2000;
        b[i] = (i * 13) % 101 - 50;
        x[i] = (float) i * 0.25f;
        y[i] = (float) (N - i);
        h[i] = (int16_t) (i * 37 - 9000);
        src[i] = (uint8_t) (i * 5);
    }
    for (int round = 0; round < 3; round++) {
        add_arrays(c, a, b, N - round);
        saxpy(y, x, 1.5f, N - round);
        clamp_negative(c, N);
        widen(wide, h, N);
        every_third(b, c, N);
        copy_bytes(dst, src, N - round);
    }
    int64_t w = 0;
    uint64_t bytes = 0;
    double f = 0;
    for (int i = 0; i < N; i++) {
        w += wide[i] % 1000;
        bytes = bytes * 31 + dst[i];
        f += y[i];
    }
    printf("sum(c) = %lld\nsum(b) = %lld\nwide = %lld\nbytes = %llu\nsaxpy = %.2f\n", (long long) sum(c, N),
           (long long) sum(b, N), (long long) w, (unsigned long long) bytes, f);
    return 0;
}
