/* bench: glibc's SIMD string functions over 1 MiB buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    size_t n = 1 << 20;
    char *a = malloc(n + 64), *b = malloc(n + 64);
    for (size_t i = 0; i < n; i++)
        a[i] = (char)('a' + i % 23);
    a[n] = 0;
    unsigned long long acc = 0;
    for (int r = 0; r < rounds; r++) {
        memcpy(b + (r & 7), a, n + 1);
        acc += strlen(b + (r & 7));
        acc += (size_t)((char *)memchr(b + (r & 7), 'a' + (r % 23), n) - b);
        acc += (unsigned)memcmp(a, b + (r & 7), n) & 0xff;
        memset(b, r & 0xff, n / 2);
    }
    printf("%llu\n", acc);
    free(a);
    free(b);
    return 0;
}
