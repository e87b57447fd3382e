// A C++ workload of adjustable length for bench/instrument.sh (profile record against plain QEMU):
// pseudo-random keys sorted in batches (std::sort) and counted in a std::map. argv[1]: the number
// of keys (default 1000).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    std::map<int, long> counts;
    std::vector<int> batch;
    unsigned x = 12345;
    for (long i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        batch.push_back(static_cast<int>((x >> 8) % 1000));
        if (batch.size() == 256 || i == n - 1) {
            std::sort(batch.begin(), batch.end());
            for (int k : batch) {
                counts[k] += 1;
            }
            batch.clear();
        }
    }
    long sum = 0;
    for (const auto &p : counts) {
        sum += p.first * p.second;
    }
    std::printf("%zu keys, sum %ld\n", counts.size(), sum);
    return 0;
}
