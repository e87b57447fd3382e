// A C++ shared library whose functions throw: the exceptions cross the library's boundary and are
// caught in the executable (cxxlib_main.cpp), unwinding through frames of both.
#include "cxxlib.h"

__attribute__((noinline)) int lib_validate(int value) {
    if (value % 7 == 3) {
        throw LibFailure("value " + std::to_string(value) + " rejected", value);
    }
    return value * 2;
}

__attribute__((noinline)) int lib_process(const std::vector<int> &values) {
    int total = 0;
    for (int v : values) {
        std::vector<int> guard(3, v);  // an object to destroy while unwinding
        try {
            total += lib_validate(v) + guard[1];
        } catch (const LibFailure &f) {
            if (f.code % 2 == 0) {
                throw;  // rethrown to the executable
            }
            total -= f.code;  // caught inside the library
        }
    }
    return total;
}
