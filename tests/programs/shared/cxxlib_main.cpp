// Loads libsplice_cxx.so (cxxlib.cpp) and catches the exceptions its functions throw.
#include <cstdio>
#include "cxxlib.h"

int main(int argc, char **) {
    int caught = 0;
    long sum = 0;
    for (int round = 0; round < 40 + argc; round++) {
        std::vector<int> values;
        for (int i = 0; i < 5; i++) values.push_back(round * 5 + i);
        try {
            sum += lib_process(values);
        } catch (const LibFailure &f) {
            caught++;
            sum += f.code;
        }
    }
    std::printf("caught=%d sum=%ld\n", caught, sum);
    return caught;
}
