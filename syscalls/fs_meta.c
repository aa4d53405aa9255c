/* File metadata for x86_64 guests beyond fs_paths.c: mknod, chown/lchown,
 * fchmodat2, utimes/futimesat/utime, setting and removing extended
 * attributes, sync/syncfs, file handles, cachestat.  Time arguments are copied into host structures
 * first, as the kernel does before it looks the path up. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "syscalls/fs.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

int64_t sys_mknodat(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, (int)a[0], a[1], PATH_NOFOLLOW, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_mknodat, hp.dirfd, hp.path, (mode_t)a[2], (unsigned)a[3]));
}

int64_t sys_mknod(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0, 0 };
    return sys_mknodat(c, b);
}

int64_t sys_chown(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0, 0 };
    return sys_fchownat(c, b);
}

int64_t sys_lchown(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], AT_SYMLINK_NOFOLLOW, 0 };
    return sys_fchownat(c, b);
}

int64_t sys_fchmodat2(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, (int)a[0], a[1],
                          (a[3] & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_fchmodat2, hp.dirfd, hp.path, (mode_t)a[2], (unsigned)a[3]));
}

/* futimesat(dirfd, path, struct timeval times[2]); utimes is its AT_FDCWD form. */
int64_t sys_futimesat(struct cpu *c, const uint64_t a[6])
{
    struct guest_timeval g[2];
    struct timeval tv[2];
    if (a[2]) {
        if (copy_from_guest(c, g, a[2], sizeof(g)))
            return -EFAULT;
        for (int i = 0; i < 2; i++)
            tv[i] = (struct timeval){ .tv_sec = g[i].tv_sec, .tv_usec = g[i].tv_usec };
    }
    if (!a[1]) /* futimesat(fd, NULL, times): the descriptor itself */
        return host_ret(syscall(SYS_futimesat, (int)a[0], NULL, a[2] ? tv : NULL));
    struct host_path hp;
    int err = fs_path_arg(c, (int)a[0], a[1], 0, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_futimesat, hp.dirfd, hp.path, a[2] ? tv : NULL));
}

int64_t sys_utimes(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_futimesat(c, b);
}

/* utime(path, struct utimbuf { time_t actime, modtime; }). */
int64_t sys_utime(struct cpu *c, const uint64_t a[6])
{
    int64_t g[2];
    if (a[1] && copy_from_guest(c, g, a[1], sizeof(g)))
        return -EFAULT;
    struct host_path hp;
    int err = fs_path_arg(c, AT_FDCWD, a[0], 0, &hp);
    if (err)
        return err;
    /* utime() has no *at form: a path relative to a translated directory
     * is made absolute by path_resolve(), so AT_FDCWD holds here. */
    struct { long actime, modtime; } h = { g[0], g[1] };
    return host_ret(syscall(SYS_utime, hp.path, a[1] ? &h : NULL));
}

/* setxattr family: which = 0 path, 1 lpath, 2 fd. */
static int64_t setxattr_common(struct cpu *c, const uint64_t a[6], long nr, int which)
{
    struct host_path hp;
    int err = 0;
    const char *p = NULL;
    if (which != 2) {
        if ((err = fs_path_arg(c, AT_FDCWD, a[0], which == 1 ? PATH_NOFOLLOW : 0, &hp)))
            return err;
        p = hp.path; /* no *at form: path_resolve() made it absolute if needed */
    }
    /* The host reads the name and the value from guest memory itself and
     * checks them in the kernel's order (-ERANGE, -E2BIG, -EFAULT). */
    const char *name = guest_ptr(c, a[1], 1, PROT_READ);
    const void *value = guest_ptr(c, a[2], a[3], PROT_READ);
    if (which == 2)
        return host_ret(syscall(nr, (int)a[0], name, value, (size_t)a[3], (int)a[4]));
    return host_ret(syscall(nr, p, name, value, (size_t)a[3], (int)a[4]));
}

int64_t sys_setxattr(struct cpu *c, const uint64_t a[6]) { return setxattr_common(c, a, SYS_setxattr, 0); }
int64_t sys_lsetxattr(struct cpu *c, const uint64_t a[6]) { return setxattr_common(c, a, SYS_lsetxattr, 1); }
int64_t sys_fsetxattr(struct cpu *c, const uint64_t a[6]) { return setxattr_common(c, a, SYS_fsetxattr, 2); }

static int64_t removexattr_common(struct cpu *c, const uint64_t a[6], long nr, int which)
{
    struct host_path hp;
    int err = 0;
    const char *p = NULL;
    if (which != 2) {
        if ((err = fs_path_arg(c, AT_FDCWD, a[0], which == 1 ? PATH_NOFOLLOW : 0, &hp)))
            return err;
        p = hp.path; /* no *at form: path_resolve() made it absolute if needed */
    }
    const char *name = guest_ptr(c, a[1], 1, PROT_READ);
    return host_ret(which == 2 ? syscall(nr, (int)a[0], name) : syscall(nr, p, name));
}

int64_t sys_removexattr(struct cpu *c, const uint64_t a[6]) { return removexattr_common(c, a, SYS_removexattr, 0); }
int64_t sys_lremovexattr(struct cpu *c, const uint64_t a[6]) { return removexattr_common(c, a, SYS_lremovexattr, 1); }
int64_t sys_fremovexattr(struct cpu *c, const uint64_t a[6]) { return removexattr_common(c, a, SYS_fremovexattr, 2); }

int64_t sys_sync(struct cpu *c, const uint64_t a[6])
{
    sync();
    return 0;
}

int64_t sys_syncfs(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_syncfs, (int)a[0]));
}

/* struct file_handle { u32 handle_bytes; int handle_type; u8 f_handle[]; }:
 * at most MAX_HANDLE_SZ (128) opaque bytes.  The handle, and the mount id
 * (an int, or a u64 with AT_HANDLE_MNT_ID_UNIQUE), stay in guest memory:
 * the host reads handle_bytes and writes the rest there itself, in the
 * kernel's order. */
#define HANDLE_MAX_BYTES (8 + 128)

int64_t sys_name_to_handle_at(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, (int)a[0], a[1], (a[4] & AT_SYMLINK_FOLLOW) ? 0 : PATH_NOFOLLOW, &hp);
    if (err)
        return err;
    void *handle = guest_ptr(c, a[2], HANDLE_MAX_BYTES, PROT_READ | PROT_WRITE);
    void *mount_id = guest_ptr(c, a[3], sizeof(uint64_t), PROT_WRITE);
    return host_ret(syscall(SYS_name_to_handle_at, hp.dirfd, hp.path, handle, mount_id, (int)a[4]));
}

int64_t sys_open_by_handle_at(struct cpu *c, const uint64_t a[6])
{
    const void *handle = guest_ptr(c, a[1], HANDLE_MAX_BYTES, PROT_READ);
    return host_ret(syscall(SYS_open_by_handle_at, (int)a[0], handle, (int)a[2]));
}

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

/* cachestat(fd, struct cachestat_range { u64 off, len; } *,
 * struct cachestat { five u64 counters } *, flags): plain structures the
 * host reads and writes in guest memory. */
int64_t sys_cachestat(struct cpu *c, const uint64_t a[6])
{
    const void *range = guest_ptr(c, a[1], 16, PROT_READ);
    void *cstat = guest_ptr(c, a[2], 40, PROT_WRITE);
    return host_ret(syscall(SYS_cachestat, (unsigned)a[0], range, cstat, (unsigned)a[3]));
}
