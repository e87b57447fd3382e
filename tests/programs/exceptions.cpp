// Throws C++ exceptions through several frames and catches them: unwinding must work through
// any function Splice rewrites.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct Failure : std::runtime_error {
    int code;
    Failure(const std::string &what, int c) : std::runtime_error(what), code(c) {}
};

__attribute__((noinline)) int validate(int value) {
    if (value % 7 == 3) {
        throw Failure("value " + std::to_string(value) + " rejected", value);
    }
    return value * 2;
}

__attribute__((noinline)) int process(const std::vector<int> &values) {
    int total = 0;
    for (int v : values) {
        std::vector<int> guard(3, v);  // an object to destroy while unwinding
        total += validate(v) + guard[1];
    }
    return total;
}

int main(int argc, char **) {
    int caught = 0;
    long sum = 0;
    for (int round = 0; round < 40 + argc; round++) {
        std::vector<int> values;
        for (int i = 0; i < 5; i++) values.push_back(round * 5 + i);
        try {
            sum += process(values);
        } catch (const Failure &f) {
            caught++;
            sum += f.code;
        }
    }
    try {
        throw std::out_of_range("done");
    } catch (const std::exception &e) {
        std::printf("caught=%d sum=%ld last=%s\n", caught, sum, e.what());
    }
    return caught;
}
