// C++ exceptions thrown through functions without cleanups (no LSDA), so that Splice can move
// them: relay() and twice_relay() sit between the thrower and the catcher.
#include <cstdio>
#include <stdexcept>

__attribute__((noinline)) int thrower(int v) {
    if (v % 5 == 2) {
        throw std::runtime_error("rejected");
    }
    return v * 3;
}

__attribute__((noinline)) int relay(int v) {
    int r = thrower(v + 1);
    return r + thrower(v);
}

__attribute__((noinline)) int twice_relay(int v) {
    return relay(v) * 2 + 1;
}

int main(int argc, char **) {
    int caught = 0;
    long sum = 0;
    for (int i = 0; i < 30 + argc; i++) {
        try {
            sum += twice_relay(i);
        } catch (const std::runtime_error &e) {
            caught++;
            sum += i;
        }
    }
    std::printf("caught=%d sum=%ld\n", caught, sum);
    return caught;
}
