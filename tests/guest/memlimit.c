/* RLIMIT_AS and RLIMIT_DATA on mmap, mremap, mprotect and brk, compared
 * with the native run.  The limits are set a few pages above what the
 * process maps at that moment (VmSize and VmData of /proc/self/status), so
 * the same requests succeed or fail with ENOMEM natively and under elfemu
 * even though the two processes do not map the same amount of memory.
 * Every check runs in a forked child; only raw system calls are made while
 * a limit is in force (no stdio, no malloc). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096ul
#define MAXLINES 32

static char lines[MAXLINES][64];
static int nlines;

/* Recorded now, printed after the limit is gone. */
static void note(const char *what, int ok)
{
    if (nlines < MAXLINES)
        snprintf(lines[nlines++], sizeof(lines[0]), "%s: %s", what,
                 ok ? "ok" : strerrorname_np(errno));
}

static void *map(size_t pages, int prot, int flags, void *at)
{
    return mmap(at, pages * PAGE, prot, flags | MAP_ANONYMOUS, -1, 0);
}

/* kB of a /proc/self/status line (VmSize:, VmData:). */
static unsigned long status_kb(const char *key)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    char *p = strstr(buf, key);
    return p ? strtoul(p + strlen(key), NULL, 10) : 0;
}

static void set_limit(int res, unsigned long bytes)
{
    struct rlimit rl = { bytes, RLIM_INFINITY };
    setrlimit(res, &rl);
}

static void as_limit(void)
{
    /* 24 pages of which the last 8 are given back: a MAP_FIXED of 24
     * pages at a then maps 8 new ones (and replaces nothing unknown). */
    char *a = map(24, PROT_READ | PROT_WRITE, MAP_PRIVATE, NULL);
    munmap(a + 16 * PAGE, 8 * PAGE);
    char *fixed_at = a;
    set_limit(RLIMIT_AS, status_kb("VmSize:") * 1024 + 48 * PAGE);
    char *b = map(32, PROT_READ | PROT_WRITE, MAP_PRIVATE, NULL);
    note("mmap 32 pages under a 48-page margin", b != MAP_FAILED);
    note("mmap 32 more", map(32, PROT_READ, MAP_PRIVATE, NULL) != MAP_FAILED);
    note("MAP_FIXED over 16 mapped pages",
         map(16, PROT_READ, MAP_PRIVATE | MAP_FIXED, fixed_at) != MAP_FAILED);
    note("MAP_FIXED 24 pages over 16 mapped (8 new)",
         map(24, PROT_READ, MAP_PRIVATE | MAP_FIXED, fixed_at) != MAP_FAILED);
    long r = syscall(SYS_mremap, b, 32 * PAGE, 48 * PAGE, MREMAP_MAYMOVE);
    note("mremap +16 pages", r != -1);
    r = syscall(SYS_mremap, b, 32 * PAGE, 36 * PAGE, MREMAP_MAYMOVE);
    note("mremap +4 pages", r != -1);
    if (r != -1)
        b = (char *)r;
    void *brk0 = sbrk(0);
    note("brk +64 pages", syscall(SYS_brk, (char *)brk0 + 64 * PAGE) == (long)((char *)brk0 + 64 * PAGE) ||
                              (errno = ENOMEM, 0));
    note("munmap 36", munmap(b, 36 * PAGE) == 0);
    note("mmap 40 after the munmap", map(40, PROT_READ, MAP_SHARED, NULL) != MAP_FAILED);
}

static void data_limit(void)
{
    set_limit(RLIMIT_DATA, status_kb("VmData:") * 1024 + 24 * PAGE);
    note("private RW 32 pages over a 24-page data margin",
         map(32, PROT_READ | PROT_WRITE, MAP_PRIVATE, NULL) != MAP_FAILED);
    char *ro = map(32, PROT_READ, MAP_PRIVATE, NULL);
    note("private RO 32 pages (not data)", ro != MAP_FAILED);
    note("shared RW 32 pages (not data)",
         map(32, PROT_READ | PROT_WRITE, MAP_SHARED, NULL) != MAP_FAILED);
    note("mprotect the 32 RO pages RW", mprotect(ro, 32 * PAGE, PROT_READ | PROT_WRITE) == 0);
    note("mprotect 16 of them RW", mprotect(ro, 16 * PAGE, PROT_READ | PROT_WRITE) == 0);
    note("private RW 16 pages", map(16, PROT_READ | PROT_WRITE, MAP_PRIVATE, NULL) != MAP_FAILED);
    void *brk0 = sbrk(0);
    note("brk +64 pages", syscall(SYS_brk, (char *)brk0 + 64 * PAGE) == (long)((char *)brk0 + 64 * PAGE) ||
                              (errno = ENOMEM, 0));
    set_limit(RLIMIT_DATA, 0);
    note("private RW 1 page with RLIMIT_DATA 0",
         map(1, PROT_READ | PROT_WRITE, MAP_PRIVATE, NULL) != MAP_FAILED);
}

static void in_child(void (*f)(void))
{
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        f();
        struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY };
        setrlimit(RLIMIT_AS, &inf);
        setrlimit(RLIMIT_DATA, &inf);
        for (int i = 0; i < nlines; i++)
            printf("%s\n", lines[i]);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    printf("child: %s %d\n", WIFEXITED(st) ? "exit" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

int main(void)
{
    printf("memlimit\n");
    in_child(as_limit);
    in_child(data_limit);
    return 0;
}
