/* glibc's string functions (its SIMD implementations, chosen from CPUID)
 * over every size up to 300 and every alignment in a 64-byte window;
 * prints a checksum of the results so native and emulated runs compare. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned char a[1024] __attribute__((aligned(64))), b[1024] __attribute__((aligned(64)));

int main(void)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
    for (int al = 0; al < 64; al += 3)
        for (int n = 0; n < 300; n++) {
            for (int i = 0; i < 1024; i++)
                a[i] = (unsigned char)('a' + (i * 7 + n) % 26);
            a[al + n] = 0;
            MIX(strlen((char *)a + al));
            memcpy(b + (al ^ 5), a + al, (size_t)n + 1);
            MIX(strcmp((char *)a + al, (char *)b + (al ^ 5)));
            MIX(memcmp(a + al, b + (al ^ 5), (size_t)n));
            char *p = memchr(a + al, 'q', (size_t)n);
            MIX(p ? p - (char *)a : -1);
            p = strchr((char *)a + al, 'z');
            MIX(p ? p - (char *)a : -1);
            p = strrchr((char *)a + al, 'm');
            MIX(p ? p - (char *)a : -1);
            memset(b + al, n & 0xff, (size_t)n);
            MIX(b[al + n / 2]);
            memmove(b + al + 1, b + al, (size_t)n);
            MIX(b[al + n]);
            MIX(strncmp((char *)a + al, "abc", 3));
            MIX(strspn((char *)a + al, "abcdefgh"));
            MIX(strcspn((char *)a + al, "xyz"));
            char *s = strstr((char *)a + al, "hov");
            MIX(s ? s - (char *)a : -1);
        }
    printf("%016llx\n", (unsigned long long)h);
    return 0;
}
