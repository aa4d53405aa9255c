/* Path-based file calls for x86_64 guests: stat family, directories,
 * links, permissions, times.  Each path goes through guest_str() and
 * path_resolve() (the -L root, the /proc views), each buffer through
 * guest_buf(). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/paths.h"
#include "syscalls/syscalls.h"

#define PATH_OR_RETURN(var, dirfd, addr, flags)                                         \
    struct host_path var;                                                               \
    do {                                                                                \
        int err_ = fs_path_arg(c, (dirfd), (addr), (flags), &var);                             \
        if (err_)                                                                       \
            return err_;                                                                \
    } while (0)

#define NOFOLLOW_IF(flags, bit) (((flags) & (bit)) ? PATH_NOFOLLOW : 0)

int64_t sys_stat(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_newfstatat(c, b);
}

int64_t sys_lstat(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], AT_SYMLINK_NOFOLLOW, 0, 0 };
    return sys_newfstatat(c, b);
}

int64_t sys_statx(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, (int)a[0], a[1], NOFOLLOW_IF(a[2], AT_SYMLINK_NOFOLLOW));
    void *buf = guest_ptr(c, a[4], sizeof(struct statx), PROT_WRITE);
    return host_ret(syscall(SYS_statx, p.dirfd, p.path, (int)a[2], (unsigned)a[3], buf));
}

int64_t sys_fadvise64(struct cpu *c, const uint64_t a[6])
{
    /* posix_fadvise returns the error number itself. */
    long r = syscall(SYS_fadvise64, (int)a[0], (off_t)a[1], (off_t)a[2], (int)a[3]);
    return r < 0 ? -errno : r;
}

int64_t sys_chdir(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, AT_FDCWD, a[0], 0);
    int64_t r = host_ret(syscall(SYS_chdir, p.path));
    if (r == 0)
        path_cwd_changed();
    return r;
}

int64_t sys_fchdir(struct cpu *c, const uint64_t a[6])
{
    int64_t r = host_ret(syscall(SYS_fchdir, (int)a[0]));
    if (r == 0)
        path_cwd_changed();
    return r;
}

int64_t sys_mkdirat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, (int)a[0], a[1], PATH_NOFOLLOW);
    return host_ret(syscall(SYS_mkdirat, p.dirfd, p.path, (mode_t)a[2]));
}

int64_t sys_mkdir(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_mkdirat(c, b);
}

int64_t sys_unlinkat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, (int)a[0], a[1], PATH_NOFOLLOW);
    return host_ret(syscall(SYS_unlinkat, p.dirfd, p.path, (int)a[2]));
}

int64_t sys_unlink(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], 0, 0, 0, 0 };
    return sys_unlinkat(c, b);
}

int64_t sys_rmdir(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], AT_REMOVEDIR, 0, 0, 0 };
    return sys_unlinkat(c, b);
}

int64_t sys_renameat2(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(from, (int)a[0], a[1], PATH_NOFOLLOW);
    PATH_OR_RETURN(to, (int)a[2], a[3], PATH_NOFOLLOW);
    return host_ret(syscall(SYS_renameat2, from.dirfd, from.path, to.dirfd, to.path,
                            (unsigned)a[4]));
}

int64_t sys_renameat(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], a[3], 0, 0 };
    return sys_renameat2(c, b);
}

int64_t sys_rename(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], (uint64_t)AT_FDCWD, a[1], 0, 0 };
    return sys_renameat2(c, b);
}

int64_t sys_linkat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(from, (int)a[0], a[1], (a[4] & AT_SYMLINK_FOLLOW) ? 0 : PATH_NOFOLLOW);
    PATH_OR_RETURN(to, (int)a[2], a[3], PATH_NOFOLLOW);
    return host_ret(syscall(SYS_linkat, from.dirfd, from.path, to.dirfd, to.path, (int)a[4]));
}

int64_t sys_link(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], (uint64_t)AT_FDCWD, a[1], 0, 0 };
    return sys_linkat(c, b);
}

int64_t sys_symlinkat(struct cpu *c, const uint64_t a[6])
{
    /* The target is stored as the guest wrote it: it is resolved (inside
     * the root) when the link is followed. */
    int err;
    const char *target = guest_str(c, a[0], GUEST_PATH_MAX, &err);
    if (!target)
        return err;
    PATH_OR_RETURN(p, (int)a[1], a[2], PATH_NOFOLLOW);
    return host_ret(syscall(SYS_symlinkat, target, p.dirfd, p.path));
}

int64_t sys_symlink(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], (uint64_t)AT_FDCWD, a[1], 0, 0, 0 };
    return sys_symlinkat(c, b);
}

int64_t sys_fchmodat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, (int)a[0], a[1], 0);
    return host_ret(syscall(SYS_fchmodat, p.dirfd, p.path, (mode_t)a[2]));
}

int64_t sys_chmod(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_fchmodat(c, b);
}

int64_t sys_fchmod(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fchmod, (int)a[0], (mode_t)a[1]));
}

int64_t sys_fchownat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, (int)a[0], a[1], NOFOLLOW_IF(a[4], AT_SYMLINK_NOFOLLOW));
    return host_ret(syscall(SYS_fchownat, p.dirfd, p.path, (uid_t)a[2], (gid_t)a[3],
                            (int)a[4]));
}

int64_t sys_fchown(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fchown, (int)a[0], (uid_t)a[1], (gid_t)a[2]));
}

int64_t sys_utimensat(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp = { .dirfd = (int)a[0], .path = NULL };
    if (a[1]) { /* NULL: the descriptor itself */
        int err = fs_path_arg(c, (int)a[0], a[1], NOFOLLOW_IF(a[3], AT_SYMLINK_NOFOLLOW), &hp);
        if (err)
            return err;
    }
    const void *ts = a[2] ? guest_ptr(c, a[2], 2 * sizeof(struct timespec), PROT_READ) : NULL;
    return host_ret(syscall(SYS_utimensat, hp.dirfd, hp.path, ts, (int)a[3]));
}

int64_t sys_umask(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_umask, (mode_t)a[0]));
}

int64_t sys_fsync(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fsync, (int)a[0]));
}

int64_t sys_fdatasync(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fdatasync, (int)a[0]));
}

int64_t sys_ftruncate(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_ftruncate, (int)a[0], (off_t)a[1]));
}

int64_t sys_truncate(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, AT_FDCWD, a[0], 0);
    return host_ret(syscall(SYS_truncate, p.path, (off_t)a[1]));
}

int64_t sys_fallocate(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fallocate, (int)a[0], (int)a[1], (off_t)a[2], (off_t)a[3]));
}

/* Extended attributes: the host's, read through checked buffers. */
static int64_t getxattr_common(struct cpu *c, long nr, const uint64_t a[6], bool by_fd)
{
    struct host_path hp = { .path = NULL };
    if (!by_fd) {
        int e = fs_path_arg(c, AT_FDCWD, a[0], nr == SYS_lgetxattr ? PATH_NOFOLLOW : 0, &hp);
        if (e)
            return e;
    }
    /* The host reads the name and fills the value in guest memory itself. */
    const char *p = hp.path;
    const char *name = guest_ptr(c, a[1], 1, PROT_READ);
    void *value = guest_ptr(c, a[2], a[3], PROT_WRITE);
    return host_ret(by_fd ? syscall(nr, (int)a[0], name, value, a[3])
                          : syscall(nr, p, name, value, a[3]));
}

int64_t sys_getxattr(struct cpu *c, const uint64_t a[6]) { return getxattr_common(c, SYS_getxattr, a, false); }
int64_t sys_lgetxattr(struct cpu *c, const uint64_t a[6]) { return getxattr_common(c, SYS_lgetxattr, a, false); }
int64_t sys_fgetxattr(struct cpu *c, const uint64_t a[6]) { return getxattr_common(c, SYS_fgetxattr, a, true); }

static int64_t listxattr_common(struct cpu *c, long nr, const uint64_t a[6], bool by_fd)
{
    struct host_path hp = { .path = NULL };
    if (!by_fd) {
        int e = fs_path_arg(c, AT_FDCWD, a[0], nr == SYS_llistxattr ? PATH_NOFOLLOW : 0, &hp);
        if (e)
            return e;
    }
    const char *p = hp.path;
    void *list = guest_ptr(c, a[1], a[2], PROT_WRITE);
    return host_ret(by_fd ? syscall(nr, (int)a[0], list, a[2]) : syscall(nr, p, list, a[2]));
}

int64_t sys_listxattr(struct cpu *c, const uint64_t a[6]) { return listxattr_common(c, SYS_listxattr, a, false); }
int64_t sys_llistxattr(struct cpu *c, const uint64_t a[6]) { return listxattr_common(c, SYS_llistxattr, a, false); }
int64_t sys_flistxattr(struct cpu *c, const uint64_t a[6]) { return listxattr_common(c, SYS_flistxattr, a, true); }
