/* A libc guest for the loader tests: prints its arguments, a chosen
 * environment variable and a few auxv values, so a native run and an
 * emulated run can be compared line by line. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

static int bss_data[4096]; /* a BSS that spans pages */

int main(int argc, char **argv)
{
    printf("argc=%d\n", argc);
    for (int i = 0; i < argc; i++)
        printf("argv[%d]=%s\n", i, argv[i]);
    const char *v = getenv("ELFEMU_TEST");
    printf("ELFEMU_TEST=%s\n", v ? v : "(unset)");
    printf("pagesz=%lu\n", getauxval(AT_PAGESZ));
    printf("platform=%s\n", (const char *)getauxval(AT_PLATFORM));
    printf("bss=%d\n", bss_data[4095]);
    return argc;
}
