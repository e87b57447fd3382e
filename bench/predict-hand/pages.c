/* lookups.sh's page-touch program: N ints filled and summed, in a
 * malloc'd buffer (fresh pages: "pages N fresh") or in a reused 16 KB static one ("pages N"). */
#include <stdio.h>
#include <stdlib.h>
static int small[4096];
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    long s = 0;
    if (argc > 2) {
        int *data = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) data[i] = (i * 2654435761u) >> 7;
        for (int i = 0; i < n; i++) s += data[i];
    } else {
        for (int i = 0; i < n; i++) small[i & 4095] = (i * 2654435761u) >> 7;
        for (int i = 0; i < n; i++) s += small[i & 4095];
    }
    printf("%ld\n", s);
    return 0;
}
