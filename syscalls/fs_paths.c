/* Path-based file calls for x86_64 guests: stat family, directories,
 * links, permissions, times.  Each path goes through guest_str() (and the
 * /proc views of fs.c's sys_path), each buffer through guest_buf(). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

#define GUEST_PATH_MAX 4096

/* A checked guest path (NULL and *err on failure). */
static const char *path(struct cpu *c, uint64_t addr, int *err)
{
    return guest_str(c, addr, GUEST_PATH_MAX, err);
}

#define PATH_OR_RETURN(var, addr)                                                       \
    int err_##var;                                                                      \
    const char *var = path(c, (addr), &err_##var);                                      \
    if (!var)                                                                           \
        return err_##var

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
    PATH_OR_RETURN(p, a[1]);
    void *buf = guest_buf(c, a[4], sizeof(struct statx), PROT_WRITE);
    if (!buf)
        return -EFAULT;
    return host_ret(syscall(SYS_statx, (int)a[0], p, (int)a[2], (unsigned)a[3], buf));
}

int64_t sys_fadvise64(struct cpu *c, const uint64_t a[6])
{
    /* posix_fadvise returns the error number itself. */
    long r = syscall(SYS_fadvise64, (int)a[0], (off_t)a[1], (off_t)a[2], (int)a[3]);
    return r < 0 ? -errno : r;
}

int64_t sys_chdir(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, a[0]);
    return host_ret(syscall(SYS_chdir, p));
}

int64_t sys_fchdir(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fchdir, (int)a[0]));
}

int64_t sys_mkdirat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, a[1]);
    return host_ret(syscall(SYS_mkdirat, (int)a[0], p, (mode_t)a[2]));
}

int64_t sys_mkdir(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_mkdirat(c, b);
}

int64_t sys_unlinkat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, a[1]);
    return host_ret(syscall(SYS_unlinkat, (int)a[0], p, (int)a[2]));
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
    PATH_OR_RETURN(from, a[1]);
    PATH_OR_RETURN(to, a[3]);
    return host_ret(syscall(SYS_renameat2, (int)a[0], from, (int)a[2], to, (unsigned)a[4]));
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
    PATH_OR_RETURN(from, a[1]);
    PATH_OR_RETURN(to, a[3]);
    return host_ret(syscall(SYS_linkat, (int)a[0], from, (int)a[2], to, (int)a[4]));
}

int64_t sys_link(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], (uint64_t)AT_FDCWD, a[1], 0, 0 };
    return sys_linkat(c, b);
}

int64_t sys_symlinkat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(target, a[0]);
    PATH_OR_RETURN(p, a[2]);
    return host_ret(syscall(SYS_symlinkat, target, (int)a[1], p));
}

int64_t sys_symlink(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], (uint64_t)AT_FDCWD, a[1], 0, 0, 0 };
    return sys_symlinkat(c, b);
}

int64_t sys_fchmodat(struct cpu *c, const uint64_t a[6])
{
    PATH_OR_RETURN(p, a[1]);
    return host_ret(syscall(SYS_fchmodat, (int)a[0], p, (mode_t)a[2]));
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
    PATH_OR_RETURN(p, a[1]);
    return host_ret(syscall(SYS_fchownat, (int)a[0], p, (uid_t)a[2], (gid_t)a[3], (int)a[4]));
}

int64_t sys_fchown(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fchown, (int)a[0], (uid_t)a[1], (gid_t)a[2]));
}

int64_t sys_utimensat(struct cpu *c, const uint64_t a[6])
{
    const char *p = NULL;
    if (a[1]) {
        int err;
        if (!(p = path(c, a[1], &err)))
            return err;
    }
    const void *ts = NULL;
    if (a[2] && !(ts = guest_buf(c, a[2], 2 * sizeof(struct timespec), PROT_READ)))
        return -EFAULT;
    return host_ret(syscall(SYS_utimensat, (int)a[0], p, ts, (int)a[3]));
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
    PATH_OR_RETURN(p, a[0]);
    return host_ret(syscall(SYS_truncate, p, (off_t)a[1]));
}

int64_t sys_fallocate(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_fallocate, (int)a[0], (int)a[1], (off_t)a[2], (off_t)a[3]));
}

/* Extended attributes: the host's, read through checked buffers. */
static int64_t getxattr_common(struct cpu *c, long nr, const uint64_t a[6], bool by_fd)
{
    const char *p = NULL;
    if (!by_fd) {
        int err;
        if (!(p = path(c, a[0], &err)))
            return err;
    }
    int err;
    const char *name = guest_str(c, a[1], 256, &err);
    if (!name)
        return err == -ENAMETOOLONG ? -ERANGE : err;
    void *value = guest_buf(c, a[2], a[3], PROT_WRITE);
    if (!value)
        return -EFAULT;
    return host_ret(by_fd ? syscall(nr, (int)a[0], name, value, a[3])
                          : syscall(nr, p, name, value, a[3]));
}

int64_t sys_getxattr(struct cpu *c, const uint64_t a[6]) { return getxattr_common(c, SYS_getxattr, a, false); }
int64_t sys_lgetxattr(struct cpu *c, const uint64_t a[6]) { return getxattr_common(c, SYS_lgetxattr, a, false); }
int64_t sys_fgetxattr(struct cpu *c, const uint64_t a[6]) { return getxattr_common(c, SYS_fgetxattr, a, true); }

static int64_t listxattr_common(struct cpu *c, long nr, const uint64_t a[6], bool by_fd)
{
    const char *p = NULL;
    if (!by_fd) {
        int err;
        if (!(p = path(c, a[0], &err)))
            return err;
    }
    void *list = guest_buf(c, a[1], a[2], PROT_WRITE);
    if (!list)
        return -EFAULT;
    return host_ret(by_fd ? syscall(nr, (int)a[0], list, a[2]) : syscall(nr, p, list, a[2]));
}

int64_t sys_listxattr(struct cpu *c, const uint64_t a[6]) { return listxattr_common(c, SYS_listxattr, a, false); }
int64_t sys_llistxattr(struct cpu *c, const uint64_t a[6]) { return listxattr_common(c, SYS_llistxattr, a, false); }
int64_t sys_flistxattr(struct cpu *c, const uint64_t a[6]) { return listxattr_common(c, SYS_flistxattr, a, true); }

/* copy_file_range: descriptors and optional guest offsets. */
int64_t sys_copy_file_range(struct cpu *c, const uint64_t a[6])
{
    void *off_in = NULL, *off_out = NULL;
    if (a[1] && !(off_in = guest_buf(c, a[1], sizeof(int64_t), PROT_READ | PROT_WRITE)))
        return -EFAULT;
    if (a[3] && !(off_out = guest_buf(c, a[3], sizeof(int64_t), PROT_READ | PROT_WRITE)))
        return -EFAULT;
    return host_ret(syscall(SYS_copy_file_range, (int)a[0], off_in, (int)a[2], off_out, a[4],
                            (unsigned)a[5]));
}
