/* A link in a chain of execs between 32-bit and 64-bit programs (the
 * mixed process trees of ia32 guests): prints its word size, arguments and
 * the depth of the chain (an environment variable it increments), checks
 * that execve refuses bad argument vectors the way the kernel does, then
 * execs argv[1] with the arguments after it.  Without arguments it ends
 * the chain. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static void fails(const char *what, const char *path, char **argv, char **envp)
{
    errno = 0;
    long r = syscall(SYS_execve, path, argv, envp);
    printf("  %s: %ld %s\n", what, r, strerror(errno));
}

int main(int argc, char **argv)
{
    const char *d = getenv("EXECARGS_DEPTH");
    int depth = d ? atoi(d) : 0;
    printf("%d-bit link, depth %d, argc %d:", (int)sizeof(void *) * 8, depth, argc);
    for (int i = 1; i < argc; i++)
        printf(" [%s]", argv[i]);
    printf("\n");
    if (argc < 2)
        return 0;

    /* The vectors are read before the file's format is looked at. */
    char *bad_elem[] = { argv[1], (char *)8, NULL };
    fails("argv element unreadable", argv[1], bad_elem, environ);
    fails("envp element unreadable", argv[1], argv + 1, bad_elem + 1);
    char **volatile unreadable = (char **)8;
    fails("argv array unreadable", argv[1], unreadable, environ);
    /* The array's end on an unmapped page: no terminating NULL. */
    long pg = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (two != MAP_FAILED) {
        munmap(two + pg, (size_t)pg);
        char **end = (char **)(two + pg) - 2;
        end[0] = end[1] = argv[1];
        fails("argv without its NULL", argv[1], end, environ);
    }
    fails("missing program", "/nonexistent/program", argv + 1, environ);

    /* The environment, with the depth one higher, as a fresh vector. */
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof(*env));
    char depth_var[32];
    snprintf(depth_var, sizeof(depth_var), "EXECARGS_DEPTH=%d", depth + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "EXECARGS_DEPTH=", 15) != 0)
            env[k++] = environ[i];
    env[k++] = depth_var;
    env[k] = NULL;
    fflush(stdout);
    execve(argv[1], argv + 1, env);
    printf("execve %s: %s\n", argv[1], strerror(errno));
    return 127;
}
