/* The C shared library's interface (clib.c), used by clib_main.c. */
#ifndef SPLICE_CLIB_H
#define SPLICE_CLIB_H
long lib_checksum(const int *data, int n);
int lib_classify(int x);
long lib_apply(long v);
long lib_dispatch(int op, long v);
long (*lib_operation(int i))(long);
extern int lib_calls;
#endif
