/* Every syscall elfemu serves, called with garbage arguments, compared with
 * the native run: the result (ok or the errno name) must be the same, and
 * the emulator must neither crash nor leak a host address.
 *
 * The program includes elfemu's own syscall list (syscalls/list.h), so it
 * calls exactly the calls elfemu has a handler for; natively the same
 * program makes the same calls.  Each call runs in a forked child with all
 * six arguments set to one pattern:
 *   one    1: an unmapped low address, fd 1, small flags
 *   minus  -1: ~0 as address, fd -1, every flag bit
 *   none   a PROT_NONE page + 8: reading or writing it faults
 *   ro     a read-only zero page + 8: reads see zeros (an empty path, a
 *          zero struct), writes fault
 * The +8 keeps addresses unaligned, so mmap/munmap/mprotect/madvise refuse
 * them instead of unmapping half the process.  Paths are always unreadable
 * or empty, so nothing on disk can change.
 *
 * Calls that could harm the machine or the test itself even with such
 * arguments are skipped (see skip()): signals to other processes, exit,
 * fork-like clones, sigreturn, sleeps that never end, setting the clock,
 * and changing the scheduling of pid 1. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct call {
    const char *name;
    long nr;
};

/* Built with -m32 it calls the i386 numbers. */
#ifdef __i386__
#define SYSCALL(name, nr64, nr32, spec) { #name, nr32 },
#else
#define SYSCALL(name, nr64, nr32, spec) { #name, nr64 },
#endif
static const struct call calls[] = {
#include "../../syscalls/list.h"
};
#undef SYSCALL

#define RESULT_FD 100

/* name is in set; an i386-only row NAME_ia32 counts as NAME. */
static bool is(const char *name, const char *const *set)
{
    size_t n = strlen(name);
    if (n > 5 && !strcmp(name + n - 5, "_ia32"))
        n -= 5;
    for (; *set; set++)
        if (strlen(*set) == n && !strncmp(name, *set, n))
            return true;
    return false;
}

static bool skip(const char *name, const char *pattern)
{
    static const char *const never[] = {
        /* other processes, the test's own life, or the machine */
        "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
        "exit", "exit_group", "fork", "vfork", "clone", "rt_sigreturn",
        "pause", "clock_settime", "settimeofday", "adjtimex", "clock_adjtime",
        /* i386: the old calls take values, not pointers: stime would set the
         * clock, sigsuspend with every bit blocks SIGALRM and never ends. */
        "stime", "sigsuspend", "sigreturn", "clock_settime64", "clock_adjtime64",
        /* the old select reads its arguments from memory: a zero struct
         * is select(0, NULL, NULL, NULL, NULL), which never returns */
        "old_select",
        /* rseq: elfemu answers ENOSYS on purpose (glibc then runs without
         * it); the kernel checks the arguments first. */
        "rseq",
        /* Another process's robust list is refused (EPERM) by design: its
         * guest list is not known to this elfemu. */
        "get_robust_list",
        NULL
    };
    /* With 1 as the pid these would act on init (they fail on the bad
     * pointer or value first natively, but a bug must not reach pid 1). */
    static const char *const pid_first[] = {
        "sched_setaffinity", "sched_setparam", "sched_setscheduler", "sched_setattr",
        "setpriority", "ioprio_set", "prlimit64", "setpgid", NULL
    };
    return is(name, never) || (!strcmp(pattern, "one") && is(name, pid_first));
}

/* In the child: stdin/stdout/stderr become a private pipe (fchmod(1) or
 * ftruncate(1) then touch nothing outside), every other descriptor but the
 * result pipe is closed, and the call runs once. */
/* A System V object a call created (msgget(-1, -1) makes a queue with key
 * 0xffffffff) must not outlive the test: the next run would find it. */
static void remove_created(long nr, long id)
{
    if (id < 0)
        return;
    if (nr == SYS_msgget)
        syscall(SYS_msgctl, id, IPC_RMID, NULL);
    else if (nr == SYS_semget)
        syscall(SYS_semctl, id, 0, IPC_RMID, 0);
    else if (nr == SYS_shmget)
        syscall(SYS_shmctl, id, IPC_RMID, NULL);
}

static void child(long nr, uint64_t v, int result)
{
    int p[2];
    if (pipe(p) != 0)
        _exit(100);
    dup2(p[0], 0);
    dup2(p[1], 1);
    dup2(p[1], 2);
    dup2(result, RESULT_FD);
    for (int fd = 3; fd < 1024; fd++)
        if (fd != RESULT_FD)
            close(fd);
    struct rlimit core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &core);
    alarm(5);
    long r = syscall(nr, v, v, v, v, v, v);
    int e = r < 0 ? errno : 0;
    remove_created(nr, r);
    char line[64];
    int n = snprintf(line, sizeof(line), "%s", r < 0 ? strerrorname_np(e) : "ok");
    if (write(RESULT_FD, line, (size_t)n) != n)
        _exit(101);
    _exit(0);
}

static void run(const struct call *c, const char *pattern, uint64_t v)
{
    int p[2];
    if (pipe(p) != 0) {
        perror("pipe");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        child(c->nr, v, p[1]);
    close(p[1]);
    char buf[64] = "";
    ssize_t n = read(p[0], buf, sizeof(buf) - 1);
    close(p[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    buf[n > 0 ? n : 0] = 0;
    if (WIFSIGNALED(st))
        printf("%s(%s): killed by %s\n", c->name, pattern, sigabbrev_np(WTERMSIG(st)));
    else
        printf("%s(%s): %s%s\n", c->name, pattern, buf[0] ? buf : "no result",
               WEXITSTATUS(st) ? " (bad exit)" : "");
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    /* At a fixed address, so the patterns' values (also seen as ints, modes
     * and flags) are the same natively and under elfemu: 5.75 GiB, or 768 MiB
     * for ia32 (free in both the native and elfemu's 32-bit layout).  Their
     * low 32 bits, taken as a pid, must be above any pid_max (2^22): at 4 GiB
     * "ro" was pid 8200, so sched_rr_get_interval(ro) said EFAULT or ESRCH
     * depending on whether some process of the machine had that pid. */
#ifdef __i386__
    void *at = (void *)0x30000000;
#else
    void *at = (void *)0x170000000;
#endif
    char *none = mmap(at, (size_t)page * 3, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (none != at) {
        perror("mmap at a fixed address");
        return 1;
    }
    char *ro = none + 2 * page;
    mprotect(ro, (size_t)page, PROT_READ);
    struct {
        const char *name;
        uint64_t v;
    } patterns[] = {
        { "one", 1 },
        { "minus", ~0ull },
        { "none", (uint64_t)(uintptr_t)none + 8 },
        { "ro", (uint64_t)(uintptr_t)ro + 8 },
    };
    int tried = 0;
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        if (calls[i].nr < 0)
            continue;
        for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
            if (skip(calls[i].name, patterns[k].name))
                continue;
            run(&calls[i], patterns[k].name, patterns[k].v);
            tried++;
        }
    }
    printf("%d calls tried\n", tried);
    return 0;
}
