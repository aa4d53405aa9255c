/* execve and execveat: the new program runs under elfemu again.
 *
 * The host process re-executes the elfemu binary (elfemu_config.reexec_argv:
 * its path, resolved at startup, and the option words that must carry over
 * such as -L) with the guest's program, argv and envp, so the whole process
 * tree stays emulated.  The guest's argv[0] arrives unchanged (-0), the
 * program path is taken as execve takes it (--execve: no $PATH search), and
 * the guest's envp becomes the host environment of the new elfemu (the
 * entries the host's loader would act on hidden, see exec_env.h).
 *
 * Once the host execve succeeds there is no way back to the guest, so
 * everything execve can fail on is decided here first, in the kernel's
 * order (do_execveat_common): the path (EFAULT, ENAMETOOLONG, ENOENT), the
 * file (ENOENT, ENOTDIR, ELOOP, EACCES for no execute permission, not a
 * regular file or a noexec mount), the argument and environment vectors
 * (EFAULT, E2BIG with the kernel's limits), then the binary formats: #!
 * scripts and the ELF image with its interpreter, as the loader would take
 * them (ENOEXEC, ENOENT, ELOOP for too deep #! chains).  What is left to
 * fail after the point of no return (e.g. ETXTBSY, running out of memory
 * while loading) ends the new process with status 126/127 like a shell. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loader/loader.h"
#include "syscalls/exec_env.h"
#include "syscalls/paths.h"
#include "syscalls/procfs.h"
#include "syscalls/strace.h"
#include "syscalls/syscalls.h"
#include "syscalls/thread.h"

#define EXEC_PATH_MAX 4096            /* PATH_MAX, with the NUL */
#define MAX_ARG_STRLEN (32 * 4096ull) /* one argument or environment string */
#define MAX_ARG_STRINGS 0x7fffffffull
#define ARG_MAX_MIN (32 * 4096ull)    /* ARG_MAX: the room always granted */
#define STK_LIM (8ull << 20)          /* _STK_LIM */

/* Set once before the guest runs (elfemu_create), read-only afterwards:
 * the words, and the loader variables this elfemu was started with. */
static char **reexec_words;
static char **loader_env;
extern char **environ;

static void free_words(char **w)
{
    for (size_t i = 0; w && w[i]; i++)
        free(w[i]);
    free(w);
}

int sys_set_exec_config(const char *const *argv, const char *sysroot)
{
    /* The root comes from syscalls/paths.c (paths_root(), canonical). */
    (void)sysroot;
    free_words(reexec_words);
    reexec_words = NULL;
    free_words(loader_env);
    loader_env = NULL;
    if (!argv || !argv[0])
        return 0;
    size_t nl = 0;
    for (size_t i = 0; environ && environ[i]; i++)
        nl += exec_env_loader_var(environ[i]);
    if (!(loader_env = calloc(nl + 1, sizeof(*loader_env))))
        return -ENOMEM;
    for (size_t i = 0, k = 0; environ && environ[i]; i++)
        if (exec_env_loader_var(environ[i]) && !(loader_env[k++] = strdup(environ[i])))
            return -ENOMEM;
    size_t n = 0;
    while (argv[n])
        n++;
    char **w = calloc(n + 1, sizeof(*w));
    if (!w)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!(w[i] = strdup(argv[i]))) {
            free_words(w);
            return -ENOMEM;
        }
    }
    reexec_words = w;
    return 0;
}

/* One guest string vector (argv or envp) as host pointers into guest memory. */
struct exec_vec {
    const char **s;
    uint64_t n;
};

/* count(): walk the pointer array (NULL array: empty); 0 or -EFAULT/-E2BIG.
 * A 32-bit guest's array holds 32-bit pointers (compat_uptr_t, read by
 * get_user_arg_ptr() for compat tasks), zero-extended. */
static int vec_count(struct cpu *c, uint64_t arr, struct exec_vec *v)
{
    v->s = NULL;
    v->n = 0;
    if (!arr)
        return 0;
    size_t cap = 0;
    unsigned word = c->bits == 32 ? 4 : 8;
    for (;;) {
        uint64_t p = 0;
        if (copy_from_guest(c, &p, arr + v->n * word, word) != 0)
            return -EFAULT;
        if (!p)
            return 0;
        if (v->n >= MAX_ARG_STRINGS)
            return -E2BIG;
        if (v->n + 1 >= cap) {
            cap = cap ? cap * 2 : 16;
            const char **s = realloc(v->s, cap * sizeof(*s));
            if (!s)
                return -ENOMEM;
            v->s = s;
        }
        v->s[v->n++] = (const char *)(uintptr_t)p; /* a guest address until checked */
    }
}

/* copy_strings(): each string readable and at most MAX_ARG_STRLEN bytes,
 * all of them within *room (bytes left above bprm->argmin). */
static int vec_strings(struct cpu *c, struct exec_vec *v, uint64_t *room)
{
    for (uint64_t i = 0; i < v->n; i++) {
        int e;
        const char *s = guest_str(c, (uint64_t)(uintptr_t)v->s[i], MAX_ARG_STRLEN, &e);
        if (!s)
            return e == -ENAMETOOLONG ? -E2BIG : e;
        uint64_t len = strlen(s) + 1;
        if (len > *room)
            return -E2BIG;
        *room -= len;
        v->s[i] = s;
    }
    return 0;
}

/* bprm_stack_limits(): the room for strings once the pointers are counted
 * (as the kernel's own pointers: 8 bytes each for 32-bit guests too). */
static int arg_room(uint64_t argc, uint64_t envc, uint64_t *room)
{
    struct rlimit rl;
    uint64_t limit = STK_LIM / 4 * 3;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur / 4 < limit)
        limit = rl.rlim_cur / 4;
    if (limit < ARG_MAX_MIN)
        limit = ARG_MAX_MIN;
    uint64_t ptrs = ((argc ? argc : 1) + envc) * 8;
    if (limit <= ptrs)
        return -E2BIG;
    *room = limit - ptrs;
    return 0;
}

/* do_open_execat(): the file must be found, be a regular file we may
 * execute, on a mount that allows it.  Returns an O_PATH descriptor of it
 * (or dirfd itself for AT_EMPTY_PATH) or -errno. */
static int open_exec_file(struct cpu *c, int dirfd, const char *path, int flags,
                          char *renamed, size_t size)
{
    int fd;
    renamed[0] = 0;
    if (!*path) {
        fd = dirfd;
    } else {
        /* The guest's view of the path (the -L root, /proc/self/exe). */
        struct host_path hp;
        int e = path_resolve(c, dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0,
                             &hp);
        if (e)
            return e;
        /* The new elfemu looks the file up again by name: it must find
         * this one.  Behind /proc/self/exe it would find itself, so it is
         * given the guest program's path; a relative path that was
         * resolved inside the root (its `..` stopping there) is given as
         * the guest's absolute path.  AT_EXECFN shows that name. */
        if (hp.proc == PROCFS_EXE && !(flags & AT_SYMLINK_NOFOLLOW))
            snprintf(renamed, size, "%s", path_guest_view(sys_exe()));
        else if (path[0] != '/' && hp.path[0] == '/')
            snprintf(renamed, size, "%s", path_guest_view(hp.path));
        fd = openat(hp.dirfd, hp.path, O_PATH | O_CLOEXEC |
                                           ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0));
        if (fd < 0)
            return -errno;
    }
    struct stat st;
    struct statvfs sv;
    int e = 0;
    if (fstatat(fd, "", &st, AT_EMPTY_PATH) != 0)
        e = -errno;
    else if (S_ISLNK(st.st_mode)) /* O_PATH|O_NOFOLLOW opened the link itself */
        e = -ELOOP;
    else if (!S_ISREG(st.st_mode))
        e = -EACCES;
    else if (syscall(SYS_faccessat2, fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) != 0)
        e = errno == EACCES || errno == EPERM ? -EACCES : -errno;
    else if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_NOEXEC))
        e = -EACCES;
    if (e && fd != dirfd)
        close(fd);
    return e ? e : fd;
}

static int do_execve(struct cpu *c, int dirfd, uint64_t upath, uint64_t uargv, uint64_t uenvp,
                     int flags)
{
    if (!reexec_words)
        return -ENOSYS; /* the embedder gave no way to re-enter elfemu */
    int e;
    const char *path = guest_str(c, upath, EXEC_PATH_MAX, &e);
    if (!path)
        return e;
    if (!*path && !(flags & AT_EMPTY_PATH))
        return -ENOENT;
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;

    /* alloc_bprm(): the name the new program is given (AT_EXECFN). */
    bool fd_relative = path[0] != '/' && dirfd != AT_FDCWD;
    char filename[EXEC_PATH_MAX + 32];
    if (!fd_relative)
        snprintf(filename, sizeof(filename), "%s", path);
    else if (!*path)
        snprintf(filename, sizeof(filename), "/dev/fd/%d", dirfd);
    else
        snprintf(filename, sizeof(filename), "/dev/fd/%d/%s", dirfd, path);
    int dirfd_flags = fd_relative ? fcntl(dirfd, F_GETFD) : 0;
    if (dirfd_flags < 0)
        return -EBADF;

    char renamed[EXEC_PATH_MAX];
    int fd = open_exec_file(c, dirfd, path, flags, renamed, sizeof(renamed));
    if (fd < 0)
        return fd;
    if (renamed[0])
        snprintf(filename, sizeof(filename), "%s", renamed);
    const char **hargv = NULL, **henvp = NULL;
    char *hidden = NULL;
    struct exec_vec av = { 0 }, ev = { 0 };
    uint64_t room;
    int r;
    if ((r = vec_count(c, uargv, &av)) || (r = vec_count(c, uenvp, &ev)) ||
        (r = arg_room(av.n, ev.n, &room)))
        goto out;
    if (strlen(filename) + 1 > room) {
        r = -E2BIG;
        goto out;
    }
    room -= strlen(filename) + 1;
    if ((r = vec_strings(c, &ev, &room)) || (r = vec_strings(c, &av, &room)))
        goto out;

    /* search_binary_handler(): what the loader will accept, checked on the
     * very file opened above. */
    char self_path[64];
    snprintf(self_path, sizeof(self_path), "/proc/self/fd/%d", fd);
    if ((dirfd_flags & FD_CLOEXEC)) {
        /* BINPRM_FLAGS_PATH_INACCESSIBLE: a script named through a
         * close-on-exec descriptor could not be opened by its interpreter. */
        char magic[2];
        int rfd = open(self_path, O_RDONLY | O_CLOEXEC);
        bool script = rfd >= 0 && pread(rfd, magic, 2, 0) == 2 && magic[0] == '#' &&
                      magic[1] == '!';
        if (rfd >= 0)
            close(rfd);
        if (script) {
            r = -ENOENT;
            goto out;
        }
    }
    elfemu_error err;
    if (ldr_check(self_path, paths_root(), &err) != 0) {
        r = -err.errnum;
        goto out;
    }

    /* The host argv: elfemu, its options, then the guest's program. */
    size_t nw = 0;
    while (reexec_words[nw])
        nw++;
    const char *trace_words[4];
    int ntrace = strace_reexec_args(trace_words);
    hargv = calloc(nw + (size_t)ntrace + 10 + av.n + 1, sizeof(*hargv));
    size_t nl = 0, hidden_len = 0;
    while (loader_env && loader_env[nl])
        nl++;
    for (uint64_t i = 0; i < ev.n; i++)
        if (exec_env_loader_var(ev.s[i]) || exec_env_hidden(ev.s[i]))
            hidden_len += sizeof(EXEC_ENV_HIDE) + strlen(ev.s[i]);
    henvp = calloc(ev.n + nl + 1, sizeof(*henvp));
    hidden = malloc(hidden_len + 1);
    if (!hargv || !henvp || !hidden) {
        r = -ENOMEM;
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < nw; i++)
        hargv[k++] = reexec_words[i];
    for (int i = 0; i < ntrace; i++) /* the new program traces to the same place */
        hargv[k++] = trace_words[i];
    hargv[k++] = "--execve";
    /* The emulated limits (resource.c) the host process does not carry. */
    char rlimits[96];
    sys_exec_rlimits(rlimits, sizeof(rlimits));
    hargv[k++] = "--exec-rlimits";
    hargv[k++] = rlimits;
    hargv[k++] = "-0";
    hargv[k++] = av.n ? av.s[0] : ""; /* Linux gives an empty argv an "" argv[0] */
    char fdword[16];
    if (dirfd_flags & FD_CLOEXEC) {
        /* The new elfemu must open /dev/fd/N/...: keep the descriptor over
         * the host execve and have it closed once the program is loaded. */
        snprintf(fdword, sizeof(fdword), "%d", dirfd);
        hargv[k++] = "--close-fd";
        hargv[k++] = fdword;
    }
    hargv[k++] = "--";
    hargv[k++] = filename;
    for (uint64_t i = 1; i < av.n; i++)
        hargv[k++] = av.s[i];
    char *h = hidden;
    for (uint64_t i = 0; i < ev.n; i++) {
        henvp[i] = ev.s[i];
        if (exec_env_loader_var(ev.s[i]) || exec_env_hidden(ev.s[i])) {
            henvp[i] = h;
            h += sprintf(h, "%s%s", EXEC_ENV_HIDE, ev.s[i]) + 1;
        }
    }
    for (size_t i = 0; i < nl; i++)
        henvp[ev.n + i] = loader_env[i];

    if (dirfd_flags & FD_CLOEXEC)
        fcntl(dirfd, F_SETFD, dirfd_flags & ~FD_CLOEXEC);
    sig_prepare_exec(c);
    strace_exec_now(c);
    gthread_end(c, GTHREAD_END_EXEC, 0);
    fflush(NULL);
    execve(reexec_words[0], (char *const *)hargv, (char *const *)henvp);
    r = -errno;
    gthread_end_rearm();
    sig_exec_failed(c);
    if (dirfd_flags & FD_CLOEXEC)
        fcntl(dirfd, F_SETFD, dirfd_flags);
out:
    if (fd != dirfd)
        close(fd);
    free(av.s);
    free(ev.s);
    free(hargv);
    free(henvp);
    free(hidden);
    return r;
}

int64_t sys_execve(struct cpu *c, const uint64_t a[6])
{
    return do_execve(c, AT_FDCWD, a[0], a[1], a[2], 0);
}

int64_t sys_execveat(struct cpu *c, const uint64_t a[6])
{
    return do_execve(c, (int)a[0], a[1], a[2], a[3], (int)a[4]);
}
