/* --strace: the hook around each syscall and where the lines go.
 *
 * The line of the current call is built in a per-thread buffer
 * (strace_args.c formats it from the spec of syscalls/list.h): the
 * arguments the call reads before it runs, the rest and the result after
 * it returned.  Whole lines are then collected in one process-wide buffer
 * and written with one write(2) when it fills, before any call that may
 * block or write (so the trace never lags behind what the program does),
 * and when the process or a thread ends, execs or dies of a signal.
 *
 * Output goes to stderr (fd 2 as the guest has it, like qemu-user's
 * -strace) or to --trace-file, opened O_APPEND on a high descriptor so that
 * the processes of a tree append whole buffers and the guest's descriptors
 * keep their native numbers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/strace.h"
#include "syscalls/strace_fmt.h"
#include "syscalls/syscalls.h"

bool strace_on;
static int out_fd = 2;              /* written once by strace_open() */
static char out_path[PATH_MAX];     /* absolute; "" for stderr */
static atomic_bool several_threads; /* of this process (strace_set_threads) */
static atomic_bool several_procs;   /* this process forked, or is a fork child */
static strace_sink sink;            /* the embedder takes the lines (strace_open_sink) */
static void *sink_user;

/* Calls after which buffered lines may wait: they neither block nor write
 * to a file the trace could share; computed by strace_open(). */
static bool quiet_64[SYS_TABLE_SIZE], quiet_32[SYS_TABLE_SIZE];
static const char *const quiet_names[] = {
    "brk", "mmap", "mmap2", "munmap", "mprotect", "mremap", "madvise", "mincore", "close",
    "fstat", "stat", "lstat", "fstat64", "stat64", "lstat64", "newfstatat", "fstatat64",
    "statx", "lseek", "_llseek", "getpid", "getppid", "gettid", "getuid", "geteuid",
    "getgid", "getegid", "getgroups", "getpgrp", "getpgid", "getsid", "getcwd", "uname",
    "arch_prctl", "set_thread_area", "set_tid_address", "set_robust_list",
    "get_robust_list", "rseq", "prlimit64", "getrlimit", "setrlimit", "getrusage",
    "rt_sigaction", "rt_sigprocmask", "sigaltstack", "access", "faccessat", "faccessat2",
    "readlink", "readlinkat", "getdents", "getdents64", "fcntl", "fcntl64", "dup", "dup2",
    "dup3", "pipe", "pipe2", "umask", "clock_gettime", "clock_getres", "gettimeofday",
    "time", "times", "sysinfo", "sched_getaffinity", "sched_yield", "getrandom",
    "fadvise64", "statfs", "fstatfs", "open", "openat", "creat", "capget", "prctl",
    "personality", "membarrier", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir", "unlink",
    "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
    "symlinkat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown",
    "utimensat", "truncate", "ftruncate", "socket", "bind", "getsockname", "getpeername",
    "setsockopt", "getsockopt", "epoll_create1", "epoll_ctl", "eventfd2",
};

/* The lines not written yet, shared by the process's threads. */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static char out_buf[32768];
static size_t out_len;

/* The call in progress on this thread. */
static __thread struct strace_call cur;

/* ------------------------------------------------------------ output */

static void write_all(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(out_fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void flush_locked(void)
{
    write_all(out_buf, out_len);
    out_len = 0;
}

static void flush_out(void)
{
    pthread_mutex_lock(&out_lock);
    if (out_len)
        flush_locked();
    pthread_mutex_unlock(&out_lock);
}

/* One or more whole lines; written at once when now is true. */
static void emit(const char *s, size_t n, bool now)
{
    pthread_mutex_lock(&out_lock);
    if (sink) {
        /* Nothing is buffered: the embedder sees each line as it is done. */
        for (const char *end = s + n, *nl; s < end; s = nl + 1) {
            nl = memchr(s, '\n', (size_t)(end - s));
            if (!nl)
                nl = end - 1;
            sink(s, (size_t)(nl - s) + 1, sink_user);
        }
        pthread_mutex_unlock(&out_lock);
        return;
    }
    if (out_len + n > sizeof(out_buf))
        flush_locked();
    if (n > sizeof(out_buf)) {
        write_all(s, n);
    } else {
        memcpy(out_buf + out_len, s, n);
        out_len += n;
        if (now)
            flush_locked();
    }
    pthread_mutex_unlock(&out_lock);
}

static bool want_prefix(void)
{
    return atomic_load_explicit(&several_threads, memory_order_relaxed) ||
           atomic_load_explicit(&several_procs, memory_order_relaxed);
}

static void put_prefix(struct sbuf *b)
{
    /* strace -f: the pid (the thread's id) once there are several. */
    if (want_prefix())
        sb_printf(b, "[pid %5d] ", (int)syscall(SYS_gettid));
}

/* A line that is not a syscall: --- signal --- or +++ exit +++. */
static void emit_event(const char *what, bool now)
{
    char text[1024];
    struct sbuf b;
    sb_init(&b, text, sizeof(text));
    put_prefix(&b);
    sb_puts(&b, what);
    sb_putc(&b, '\n');
    emit(b.p, b.len, now);
}

static void quiet_init(bool *quiet, const char *const *names)
{
    for (size_t nr = 0; nr < SYS_TABLE_SIZE; nr++)
        for (size_t i = 0; names[nr] && i < sizeof(quiet_names) / sizeof(quiet_names[0]); i++)
            if (!strcmp(names[nr], quiet_names[i]))
                quiet[nr] = true;
}

static void start(bool pids)
{
    quiet_init(quiet_64, sys_names_64);
    quiet_init(quiet_32, sys_names_32);
    atomic_store(&several_procs, pids);
    atexit(flush_out);
    strace_on = true;
}

int strace_open(const char *path, bool append, bool pids)
{
    if (path) {
        /* Absolute, so that a re-executed elfemu finds it from any cwd. */
        char abs[PATH_MAX], cwd[PATH_MAX] = "";
        if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
            return -errno;
        int n = snprintf(abs, sizeof(abs), "%s%s%s", cwd, cwd[0] ? "/" : "", path);
        if (n < 0 || (size_t)n >= sizeof(abs))
            return -ENAMETOOLONG;
        int fd = open(abs, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC),
                      0666);
        if (fd < 0)
            return -errno;
        /* Out of the way of the guest's lowest-free-number allocation. */
        struct rlimit rl;
        int high = 1023;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= 1024)
            high = (int)rl.rlim_cur - 1;
        if (high > fd) {
            int moved = fcntl(fd, F_DUPFD_CLOEXEC, high);
            if (moved >= 0) {
                close(fd);
                fd = moved;
            }
        }
        out_fd = fd;
        sys_reserve_fd(fd);
        snprintf(out_path, sizeof(out_path), "%s", abs);
    }
    start(pids);
    return 0;
}

void strace_open_sink(strace_sink fn, void *user, bool pids)
{
    sink = fn;
    sink_user = user;
    start(pids);
}

int strace_reexec_args(const char *out[4])
{
    if (!strace_on || sink)
        return 0; /* the new program's elfemu cannot reach the sink */
    int n = 0;
    out[n++] = "--strace";
    if (out_path[0]) {
        out[n++] = "--trace-file-append";
        out[n++] = out_path;
    }
    if (atomic_load(&several_procs))
        out[n++] = "--trace-pids";
    return n;
}

void strace_set_threads(int n)
{
    atomic_store(&several_threads, n > 1);
}

void strace_forked(bool in_child)
{
    atomic_store(&several_procs, true);
    if (!in_child)
        return;
    /* The parent writes what was buffered; the child's copy of the lock
     * may have been held by a thread that does not exist here. */
    pthread_mutex_init(&out_lock, NULL);
    out_len = 0;
    atomic_store(&several_threads, false);
    /* strace shows the fork call once, with the parent's result. */
    if (cur.active)
        cur.suppress = true;
}

void strace_signal(struct cpu *c, const siginfo_t *si)
{
    (void)c;
    char text[512];
    struct sbuf b;
    sb_init(&b, text, sizeof(text));
    sb_puts(&b, "--- ");
    fmt_signame(&b, si->si_signo);
    sb_putc(&b, ' ');
    fmt_siginfo(&b, si);
    sb_puts(&b, " ---");
    emit_event(text, false);
}

void strace_killed(int sig)
{
    char text[64];
    struct sbuf b;
    sb_init(&b, text, sizeof(text));
    sb_puts(&b, "+++ killed by ");
    fmt_signame(&b, sig);
    sb_puts(&b, " +++");
    emit_event(text, true);
}

void strace_exited(int status)
{
    char text[64];
    snprintf(text, sizeof(text), "+++ exited with %d +++", status);
    emit_event(text, true);
}

/* How strace -f ends a thread group: a line for this thread, one for each
 * other thread (others, the leader not among them), and the leader's last,
 * without a pid once it is the only process traced. */
static void group_end(const char *what, const pid_t *others, int n)
{
    pid_t self = (pid_t)syscall(SYS_gettid), pid = getpid();
    if (n == 0 && self == pid) {
        emit_event(what, true);
        return;
    }
    char text[128];
    if (self != pid) {
        snprintf(text, sizeof(text), "[pid %5d] %s\n", (int)self, what);
        emit(text, strlen(text), false);
    }
    for (int i = 0; i < n; i++) {
        snprintf(text, sizeof(text), "[pid %5d] %s\n", (int)others[i], what);
        emit(text, strlen(text), false);
    }
    if (atomic_load(&several_procs))
        snprintf(text, sizeof(text), "[pid %5d] %s\n", (int)pid, what);
    else
        snprintf(text, sizeof(text), "%s\n", what);
    emit(text, strlen(text), true);
}

void strace_group_killed(int sig, const pid_t *others, int n)
{
    char text[64];
    struct sbuf b;
    sb_init(&b, text, sizeof(text));
    sb_puts(&b, "+++ killed by ");
    fmt_signame(&b, sig);
    sb_puts(&b, " +++");
    group_end(text, others, n);
}

void strace_group_exited(int status, const pid_t *others, int n)
{
    char text[64];
    snprintf(text, sizeof(text), "+++ exited with %d +++", status);
    group_end(text, others, n);
}

/* ------------------------------------------------------------ the hook */

void strace_enter(struct cpu *c, uint64_t nr, const uint64_t a[6])
{
    struct strace_call *k = &cur;
    const char *const *names = c->bits == 32 ? sys_names_32 : sys_names_64;
    const char *spec = nr < SYS_TABLE_SIZE ? (c->bits == 32 ? sys_spec_32 : sys_spec_64)[nr]
                                           : NULL;
    const char *name = nr < SYS_TABLE_SIZE ? names[nr] : NULL;
    if (!name) {
        snprintf(k->name_buf, sizeof(k->name_buf), "syscall_%#llx", (unsigned long long)nr);
        name = k->name_buf;
    }
    /* What is buffered goes out before a call that may block or write
     * where the trace goes, so the trace is never behind the program. */
    if (nr >= SYS_TABLE_SIZE || !(c->bits == 32 ? quiet_32 : quiet_64)[nr])
        flush_out();
    sb_init(&k->sb, k->text, sizeof(k->text));
    put_prefix(&k->sb);
    k->prefixed = k->sb.len != 0;
    strace_call_start(k, c, name, spec, a);
    strace_call_args(k, false, 0);
    if (k->result == 'n') {
        /* exit/exit_group do not come back: the line now, like strace. */
        strace_call_args(k, true, 0);
        strace_call_result(k, 0);
        emit(k->sb.p, k->sb.len, true);
        k->done = true;
    }
}

void strace_leave(struct cpu *c, int64_t r)
{
    (void)c;
    struct strace_call *k = &cur;
    if (!k->active)
        return;
    k->active = false;
    if (k->done || k->suppress)
        return;
    if (!k->prefixed && want_prefix()) {
        /* The call made several of them (fork, the first thread): the pid
         * goes before its line too, as strace shows the call resumed. */
        char pfx[32];
        struct sbuf pb;
        sb_init(&pb, pfx, sizeof(pfx));
        put_prefix(&pb);
        if (k->sb.len + pb.len < k->sb.cap) {
            memmove(k->sb.p + pb.len, k->sb.p, k->sb.len + 1);
            memcpy(k->sb.p, pfx, pb.len);
            k->sb.len += pb.len;
        }
    }
    strace_call_args(k, true, r);
    strace_call_result(k, r);
    emit(k->sb.p, k->sb.len, false);
}

void strace_exec_now(struct cpu *c)
{
    (void)c;
    struct strace_call *k = &cur;
    if (!k->active || k->done || k->suppress)
        return;
    strace_call_args(k, true, 0);
    strace_call_result(k, 0);
    emit(k->sb.p, k->sb.len, true);
    k->done = true;
}
