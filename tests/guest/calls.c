/* A guest whose calls are known, for --stats, --coverage and the example
 * tracer (tests/e2e/stats.sh, coverage.sh, calltrace): f() is called
 * exactly 1000 times, write() 3 times, open() (openat) once on a path
 * that does not exist, and never_called() never (unless given 6
 * arguments, which no test does). */
#include <fcntl.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void f(int i)
{
    sink += i;
}

__attribute__((noinline)) void never_called(void)
{
    sink = -1;
}

int main(int argc, char **argv)
{
    (void)argv;
    for (int i = 0; i < 1000; i++)
        f(i);
    (void)!write(1, "one\n", 4);
    (void)!write(1, "two\n", 4);
    (void)!write(1, "three\n", 6);
    int fd = open("/nonexistent/elfemu-calls", O_RDONLY);
    if (argc > 6)
        never_called();
    return fd == -1 ? 0 : 1;
}
