/* bench: qsort of 1M ints with glibc's qsort and a comparison callback. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000;
    int *v = malloc(n * sizeof(int));
    unsigned x = 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        v[i] = (int)x;
    }
    qsort(v, n, sizeof(int), cmp);
    unsigned long long sum = 0;
    for (size_t i = 0; i < n; i += n / 64 + 1)
        sum = sum * 31 + (unsigned)v[i];
    printf("%llu %d %d\n", sum, v[0], v[n - 1]);
    free(v);
    return 0;
}
