/* The second compile unit of units_main.c: one contiguous code range. */
__attribute__((noinline)) long scale(long v, int times) {
    long r = 0;
    for (int i = 0; i < times; i++) r += v * (i + 1);
    return r;
}

__attribute__((noinline)) int pick(int v) {
    if (v % 3 == 0) return v / 3;
    if (v % 5 == 0) return v * 2;
    return v + 1;
}

__attribute__((noinline)) long checksum(const int *values, int count) {
    long sum = 0;
    for (int i = 0; i < count; i++) sum = sum * 31 + values[i];
    return sum;
}
