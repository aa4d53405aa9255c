/* Guest paths to host paths: the foreign root (-L DIR), the guest's current
 * directory inside it, and the /proc files the emulator must answer itself.
 * The state here is written once before the guest runs (the root, /proc's
 * device) or is one atomic word (where the current directory lies), so
 * guest threads may resolve paths in parallel. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "loader/root.h"
#include "syscalls/paths.h"
#include "syscalls/host_ia32.h"
#include "syscalls/procfs.h"

static const char *root;    /* -L DIR, canonical; NULL without one */
static size_t rootlen;
static dev_t proc_dev;      /* /proc's device: a dirfd there needs a closer look */
static bool proc_dev_known;

/* Where the current directory lies, kept up to date by path_cwd_changed():
 * relative paths need translating only when it is not a plain host one.
 * One word for the process: guest threads share their directory (glibc
 * always clones with CLONE_FS); a thread made without CLONE_FS that
 * changes directory updates it for all (a known limitation). */
enum { CWD_HOST, CWD_ROOT, CWD_PROC };
static atomic_int cwd_kind;

/* True when path is dir itself or lies below it (dir without trailing slash). */
static bool under(const char *path, const char *dir, size_t len)
{
    return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == 0);
}

static int classify(const char *host)
{
    if (under(host, "/proc", 5))
        return CWD_PROC;
    if (root && under(host, root, rootlen))
        return CWD_ROOT;
    return CWD_HOST;
}

void paths_init(const char *dir)
{
    root = dir && *dir ? dir : NULL;
    rootlen = root ? strlen(root) : 0;
    struct stat st;
    proc_dev_known = stat("/proc", &st) == 0;
    if (proc_dev_known)
        proc_dev = st.st_dev;
    path_cwd_changed();
}

const char *paths_root(void)
{
    return root;
}

void path_cwd_changed(void)
{
    char cwd[PATH_MAX];
    atomic_store(&cwd_kind, getcwd(cwd, sizeof(cwd)) ? classify(cwd) : CWD_HOST);
}

const char *path_guest_view(const char *host)
{
    if (!root || !under(host, root, rootlen))
        return host;
    return host[rootlen] ? host + rootlen : "/";
}

/* /proc paths with self and thread-self replaced by numbers and `.`/`..`
 * folded, so that every spelling of our own files is recognised.  `..` is
 * folded only over the plain directories (numbers, task); after anything
 * else (a magic link such as cwd) the path is left to the host: false. */
static bool proc_normalise(const char *abs, char *out, size_t size)
{
    size_t n = 0;
    const char *p = abs;
    out[0] = 0;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *end = strchrnul(p, '/');
        size_t len = (size_t)(end - p);
        char comp[64];
        if (len == 1 && p[0] == '.') {
            p = end;
            continue;
        }
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            size_t k = n;
            while (k > 0 && out[k - 1] != '/')
                k--;
            const char *last = out + k;
            bool plain = strcmp(last, "task") == 0 || (*last && strspn(last, "0123456789") ==
                                                                    strlen(last));
            if (!plain)
                return false;
            n = k ? k - 1 : 0;
            out[n] = 0;
            p = end;
            continue;
        }
        if (n == 5 && len == 4 && !memcmp(p, "self", 4))
            snprintf(comp, sizeof(comp), "%d", (int)getpid());
        else if (n == 5 && len == 11 && !memcmp(p, "thread-self", 11))
            snprintf(comp, sizeof(comp), "%d/task/%d", (int)getpid(), (int)gettid());
        else if (len < sizeof(comp))
            snprintf(comp, sizeof(comp), "%.*s", (int)len, p);
        else
            return false; /* no file of ours has such a long name */
        int k = snprintf(out + n, size - n, "/%s", comp);
        if (k < 0 || (size_t)k >= size - n)
            return false;
        n += (size_t)k;
        p = end;
    }
    return under(out, "/proc", 5);
}

/* A path that is in neither tree yet (about to be created): the host's when
 * the host has its directory (qemu-user's rule), else inside the root when
 * the root has it, so that a directory only the root has can be written
 * to.  0 with out filled, or -1 for the host's path. */
static int root_new_path(const char *abs, char *out, size_t size)
{
    char dir[PATH_MAX];
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        n--;
    if (n >= sizeof(dir))
        return -1;
    memcpy(dir, abs, n);
    dir[n] = 0;
    char *slash = strrchr(dir, '/');
    const char *base = slash + 1;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX)
        return -1;
    char name[NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", base);
    *(slash == dir ? slash + 1 : slash) = 0;
    struct stat st;
    if (stat(dir, &st) == 0 || ldr_root_lookup(root, dir, true, out, size) != 0)
        return -1;
    size_t k = strlen(out);
    int w = snprintf(out + k, size - k, "%s%s", out[k - 1] == '/' ? "" : "/", name);
    return w < 0 || (size_t)w >= size - k ? -1 : 0;
}

/* An absolute guest path.  keep: abs is not the guest's own string and must
 * be copied to out->buf when it is the answer. */
static int resolve_abs(const char *abs, int flags, bool keep, struct host_path *out)
{
    while (abs[1] == '/') /* "//proc" is /proc too */
        abs++;
    if (under(abs, "/proc", 5)) {
        char norm[PATH_MAX];
        int tid;
        enum procfs_file f;
        bool normal = proc_normalise(abs, norm, sizeof(norm));
        /* Our root link is the guest's "/" (as in a chroot): what lies
         * below it is the guest's path of that name.  (The link itself
         * reads as "/" anyway.) */
        char pre[32];
        size_t pl = (size_t)snprintf(pre, sizeof(pre), "/proc/%d/root", (int)getpid());
        if (root && normal && !strncmp(norm, pre, pl) && norm[pl] == '/')
            return resolve_abs(norm + pl, flags, true, out);
        if (normal && (f = procfs_lookup(norm, &tid)) != PROCFS_NONE) {
            out->proc = (int)f;
            out->tid = tid;
            /* The exe link leads to the guest program. */
            const char *p = f == PROCFS_EXE && !(flags & PATH_NOFOLLOW) ? sys_exe() : norm;
            snprintf(out->buf, sizeof(out->buf), "%s", p);
            out->path = out->buf;
            return 0;
        }
    } else if (root && !under(abs, "/dev", 4) && !under(abs, "/sys", 4)) {
        int e = ldr_root_lookup(root, abs, !(flags & PATH_NOFOLLOW), out->buf, sizeof(out->buf));
        if (e == 0 || (e == -ENOENT && root_new_path(abs, out->buf, sizeof(out->buf)) == 0)) {
            out->path = out->buf;
            return 0;
        }
    }
    /* Not inside the root: the host's file of that name. */
    if (keep) {
        if (strlen(abs) >= sizeof(out->buf))
            return -ENAMETOOLONG;
        strcpy(out->buf, abs);
        out->path = out->buf;
    }
    return 0;
}

/* The host path of the directory a relative path starts from, when that is
 * one whose guest view differs from the host's (inside the root, or in
 * /proc); false when the relative path can go to the host as it is. */
static bool special_base(int dirfd, char *base, size_t size)
{
    if (dirfd == AT_FDCWD) {
        if (atomic_load(&cwd_kind) == CWD_HOST)
            return false;
        return getcwd(base, size) != NULL;
    }
    /* Cheap test first: without a root, only a directory of /proc matters;
     * what is no directory (EBADF, ENOTDIR) is the host's to report. */
    struct stat st;
    if (fstat(dirfd, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    if (!root && (!proc_dev_known || st.st_dev != proc_dev))
        return false;
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, base, size - 1);
    if (n <= 0)
        return false;
    base[n] = 0;
    return base[0] == '/' && classify(base) != CWD_HOST;
}

int path_resolve(struct cpu *c, int dirfd, const char *guest, int flags, struct host_path *out)
{
    (void)c;
    out->dirfd = dirfd;
    out->path = guest;
    out->proc = 0;
    out->tid = 0;
    if (guest[0] == '/')
        return resolve_abs(guest, flags, false, out);
    char base[PATH_MAX];
    if (!guest[0] || !special_base(dirfd, base, sizeof(base)))
        return 0; /* empty (AT_EMPTY_PATH) or relative to a plain host directory */
    /* Relative to a directory inside the root or in /proc: the guest's
     * absolute path of it, resolved as such. */
    char joined[PATH_MAX];
    const char *view = path_guest_view(base);
    int k = snprintf(joined, sizeof(joined), "%s%s%s", view, view[1] ? "/" : "", guest);
    if (k < 0 || (size_t)k >= sizeof(joined))
        return -ENAMETOOLONG;
    out->dirfd = AT_FDCWD;
    return resolve_abs(joined, flags, true, out);
}

int64_t path_openat(struct cpu *c, int dirfd, const char *guest, int flags, mode_t mode)
{
    struct host_path hp;
    /* O_CREAT|O_EXCL never follows a final symlink (a dangling one is EEXIST). */
    bool nofollow = (flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
    int e = path_resolve(c, dirfd, guest, nofollow ? PATH_NOFOLLOW : 0, &hp);
    if (e)
        return e;
    /* O_PATH descriptors name the file itself: the host's is as good. */
    if (hp.proc && !(flags & O_PATH) && !(hp.proc == PROCFS_EXE && nofollow))
        return procfs_open(c, (enum procfs_file)hp.proc, hp.tid, flags);
    /* A 32-bit guest's open without O_LARGEFILE (0100000 on both ABIs)
     * goes to the host's i386 openat: only that entry leaves the flag off
     * (x86_64's adds it), and the file gets the kernel's limits for it:
     * EOVERFLOW for a file over 2 GiB, EFBIG for writes past 2 GiB,
     * F_GETFL without the flag. */
    if (c->bits == 32 && !(flags & 0100000)) {
        int64_t r = host_ia32_openat(hp.dirfd, hp.path, flags, (unsigned)mode);
        if (r != -ENOSYS)
            return r;
    }
    return host_ret(syscall(SYS_openat, hp.dirfd, hp.path, flags, mode));
}

int64_t path_readlinkat(struct cpu *c, int dirfd, const char *guest, char *buf, size_t size)
{
    struct host_path hp;
    int e = path_resolve(c, dirfd, guest, PATH_NOFOLLOW, &hp);
    if (e)
        return e;
    char target[PATH_MAX];
    const char *t;
    if (hp.proc == PROCFS_EXE) {
        t = path_guest_view(sys_exe());
    } else {
        ssize_t n = syscall(SYS_readlinkat, hp.dirfd, hp.path, target, sizeof(target) - 1);
        if (n < 0)
            return -errno;
        target[n] = 0;
        /* The magic links of /proc (cwd, fd/N, root) show host paths. */
        /* The magic links of /proc (cwd, fd/N, root) show host paths; a
         * path relative to a /proc directory was made absolute above. */
        bool in_proc = hp.path[0] == '/' && classify(hp.path) == CWD_PROC;
        t = in_proc ? path_guest_view(target) : target;
    }
    size_t len = strlen(t);
    if (len > size)
        len = size;
    memcpy(buf, t, len);
    return (int64_t)len;
}

int64_t path_getcwd(char *buf, size_t size)
{
    char cwd[PATH_MAX];
    if (syscall(SYS_getcwd, cwd, sizeof(cwd)) < 0)
        return -errno;
    const char *v = path_guest_view(cwd);
    size_t len = strlen(v) + 1;
    if (len > size)
        return -ERANGE;
    memcpy(buf, v, len);
    return (int64_t)len;
}

int path_sockaddr_in(struct cpu *c, struct sockaddr_storage *ss, int *len, bool binding)
{
    struct sockaddr_un *sun = (struct sockaddr_un *)ss;
    const int off = (int)offsetof(struct sockaddr_un, sun_path);
    /* Only a root changes socket paths; unnamed and abstract ones are no paths. */
    /* A longer address is the host's EINVAL: left as it is. */
    if (!root || ss->ss_family != AF_UNIX || *len <= off || *len > (int)sizeof(*sun) ||
        sun->sun_path[0] == 0)
        return 0;
    char path[sizeof(struct sockaddr_storage) + 1];
    size_t n = (size_t)(*len - off);
    if (n > sizeof(struct sockaddr_storage) - (size_t)off)
        n = sizeof(struct sockaddr_storage) - (size_t)off;
    memcpy(path, sun->sun_path, n);
    path[n] = 0; /* the kernel's unix_mkname(): the path ends at the first NUL */
    struct host_path hp;
    int e = path_resolve(c, AT_FDCWD, path, binding ? PATH_NOFOLLOW : 0, &hp);
    if (e)
        return e;
    if (hp.path == path)
        return 0;
    size_t hn = strlen(hp.path);
    if (hn >= sizeof(sun->sun_path))
        return -ENAMETOOLONG;
    memcpy(sun->sun_path, hp.path, hn + 1);
    *len = off + (int)hn + 1;
    return 0;
}

void path_sockaddr_out(struct sockaddr_storage *ss, unsigned *len)
{
    struct sockaddr_un *sun = (struct sockaddr_un *)ss;
    const unsigned off = (unsigned)offsetof(struct sockaddr_un, sun_path);
    if (!root || ss->ss_family != AF_UNIX || *len <= off || *len > sizeof(*sun) ||
        sun->sun_path[0] == 0)
        return;
    char path[sizeof(sun->sun_path) + 1];
    memcpy(path, sun->sun_path, *len - off);
    path[*len - off] = 0;
    const char *v = path_guest_view(path);
    if (v == path)
        return;
    size_t vn = strlen(v);
    memcpy(sun->sun_path, v, vn + 1);
    *len = off + (unsigned)vn + 1;
}
