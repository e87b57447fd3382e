/* For fragments that call out and for the exit hook: record() is a C function a fragment calls,
 * table a symbol it addresses; argv[1] picks how the program ends: "return" from main, "exit",
 * "_exit", or "thread" (a second thread calls exit while the main thread waits in pthread_join). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long recorded;
long table[4] = {10, 20, 30, 40};

__attribute__((noinline)) void record(long value) { recorded += value; }

__attribute__((noinline)) long work(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (i % 3 == 0) {
            s += i;
        } else {
            s -= 1;
        }
    }
    return s;
}

static void *exit_from_thread(void *arg) {
    (void)arg;
    printf("thread exits\n");
    fflush(stdout);
    exit(5);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "return";
    long n = argc > 2 ? atol(argv[2]) : 10;
    long s = work(n);
    printf("work=%ld recorded=%ld table=%ld\n", s, recorded, table[0]);
    fflush(stdout);
    if (mode[0] == 'e') {
        exit(3);
    }
    if (mode[0] == '_') {
        _exit(4);
    }
    if (mode[0] == 't') {
        pthread_t t;
        pthread_create(&t, 0, exit_from_thread, 0);
        pthread_join(t, 0);
        return 6; /* not reached: the thread's exit ends the process */
    }
    return 0;
}
