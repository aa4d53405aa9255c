/* closefrom: the guest closes every descriptor above 2 (close_range, as
 * closefrom(3) and Python's subprocess children do), then runs on; the
 * tools' output files (--trace-file, --stats-file, --strace's) must
 * survive it (tests/e2e/trace.sh). */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static int after_close(int x)
{
    return x * 3 + 1;
}

int main(void)
{
    long r = syscall(SYS_close_range, 3, ~0U, 0);
    int v = after_close((int)r);
    printf("close_range %ld, then %d\n", r, v);
    return 0;
}
