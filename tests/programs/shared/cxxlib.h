// The C++ shared library's interface (cxxlib.cpp), used by cxxlib_main.cpp.
#ifndef SPLICE_CXXLIB_H
#define SPLICE_CXXLIB_H
#include <stdexcept>
#include <string>
#include <vector>

struct LibFailure : std::runtime_error {
    int code;
    LibFailure(const std::string &what, int c) : std::runtime_error(what), code(c) {}
};

int lib_validate(int value);
int lib_process(const std::vector<int> &values);
#endif
