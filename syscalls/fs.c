/* Files and descriptors for x86_64 guests.  The x86_64 structures (stat,
 * iovec, termios, winsize, dirent64, flock) have the host's layout, so the
 * calls go to the host kernel with the guest buffer translated after its
 * bounds and protection were checked.  Paths go through syscalls/paths.c
 * (the -L root and the /proc views the emulator must provide). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include "syscalls/paths.h"
#include "syscalls/syscalls.h"

#define GUEST_PATH_MAX 4096

/* Fetch a guest path argument and translate it (syscalls/paths.c: the -L
 * root, the /proc views) relative to dirfd; 0 or -errno. */
static int path_arg(struct cpu *c, int dirfd, uint64_t addr, int flags, struct host_path *hp)
{
    int err;
    const char *p = guest_str(c, addr, GUEST_PATH_MAX, &err);
    return p ? path_resolve(c, dirfd, p, flags, hp) : err;
}

int64_t sys_read(struct cpu *c, const uint64_t a[6])
{
    void *buf = guest_buf(c, a[1], a[2], PROT_WRITE);
    return buf ? host_ret(syscall(SYS_read, (int)a[0], buf, a[2])) : -EFAULT;
}

int64_t sys_write(struct cpu *c, const uint64_t a[6])
{
    uint64_t len = c->bits == 32 ? (uint32_t)a[2] : a[2];
    void *buf = guest_buf(c, a[1], len, PROT_READ);
    return buf ? host_ret(syscall(SYS_write, (int)a[0], buf, len)) : -EFAULT;
}

int64_t sys_pread64(struct cpu *c, const uint64_t a[6])
{
    void *buf = guest_buf(c, a[1], a[2], PROT_WRITE);
    return buf ? host_ret(syscall(SYS_pread64, (int)a[0], buf, a[2], a[3])) : -EFAULT;
}

int64_t sys_pwrite64(struct cpu *c, const uint64_t a[6])
{
    void *buf = guest_buf(c, a[1], a[2], PROT_READ);
    return buf ? host_ret(syscall(SYS_pwrite64, (int)a[0], buf, a[2], a[3])) : -EFAULT;
}

/* Translate a guest iovec array; the buffers need prot.  0 or -errno. */
static int iovec_arg(struct cpu *c, uint64_t addr, uint64_t n, int prot, struct iovec *out)
{
    if (n > IOV_MAX)
        return -EINVAL;
    const struct iovec *g = guest_buf(c, addr, n * sizeof(struct iovec), PROT_READ);
    if (!g)
        return -EFAULT;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t base = (uint64_t)(uintptr_t)g[i].iov_base, len = g[i].iov_len;
        if ((int64_t)len < 0)
            return -EINVAL;
        out[i].iov_base = guest_buf(c, base, len, prot);
        out[i].iov_len = len;
        if (!out[i].iov_base)
            return -EFAULT;
    }
    return 0;
}

int64_t sys_readv(struct cpu *c, const uint64_t a[6])
{
    struct iovec iov[IOV_MAX];
    int e = iovec_arg(c, a[1], a[2], PROT_WRITE, iov);
    return e ? e : host_ret(syscall(SYS_readv, (int)a[0], iov, a[2]));
}

int64_t sys_writev(struct cpu *c, const uint64_t a[6])
{
    struct iovec iov[IOV_MAX];
    int e = iovec_arg(c, a[1], a[2], PROT_READ, iov);
    return e ? e : host_ret(syscall(SYS_writev, (int)a[0], iov, a[2]));
}

int64_t sys_close(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_close, (int)a[0]));
}

int64_t sys_lseek(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_lseek, (int)a[0], a[1], (int)a[2]));
}

int64_t sys_fstat(struct cpu *c, const uint64_t a[6])
{
    void *st = guest_buf(c, a[1], sizeof(struct stat), PROT_WRITE);
    return st ? host_ret(syscall(SYS_fstat, (int)a[0], st)) : -EFAULT;
}

int64_t sys_newfstatat(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = path_arg(c, (int)a[0], a[1], (a[3] & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
    if (err)
        return err;
    void *st = guest_buf(c, a[2], sizeof(struct stat), PROT_WRITE);
    return st ? host_ret(syscall(SYS_newfstatat, hp.dirfd, hp.path, st, (int)a[3])) : -EFAULT;
}

int64_t sys_openat(struct cpu *c, const uint64_t a[6])
{
    int err;
    const char *p = guest_str(c, a[1], GUEST_PATH_MAX, &err);
    return p ? path_openat(c, (int)a[0], p, (int)a[2], (mode_t)a[3]) : err;
}

int64_t sys_open(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0, 0 };
    return sys_openat(c, b);
}

int64_t sys_faccessat2(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = path_arg(c, (int)a[0], a[1], (a[3] & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_faccessat2, hp.dirfd, hp.path, (int)a[2], (int)a[3]));
}

int64_t sys_faccessat(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], 0, 0, 0 };
    return sys_faccessat2(c, b);
}

int64_t sys_access(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_faccessat2(c, b);
}

int64_t sys_readlinkat(struct cpu *c, const uint64_t a[6])
{
    int err;
    const char *g = guest_str(c, a[1], GUEST_PATH_MAX, &err);
    if (!g)
        return err;
    if ((int64_t)a[3] <= 0)
        return -EINVAL;
    void *out = guest_buf(c, a[2], a[3], PROT_WRITE);
    if (!out)
        return -EFAULT;
    return path_readlinkat(c, (int)a[0], g, out, a[3]);
}

int64_t sys_readlink(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0, 0 };
    return sys_readlinkat(c, b);
}

int64_t sys_getcwd(struct cpu *c, const uint64_t a[6])
{
    void *buf = guest_buf(c, a[0], a[1], PROT_WRITE);
    return buf ? path_getcwd(buf, a[1]) : -EFAULT;
}

int64_t sys_getdents64(struct cpu *c, const uint64_t a[6])
{
    void *buf = guest_buf(c, a[1], a[2], PROT_WRITE);
    return buf ? host_ret(syscall(SYS_getdents64, (int)a[0], buf, a[2])) : -EFAULT;
}

int64_t sys_dup(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_dup, (int)a[0]));
}

int64_t sys_dup2(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_dup2, (int)a[0], (int)a[1]));
}

int64_t sys_dup3(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_dup3, (int)a[0], (int)a[1], (int)a[2]));
}

int64_t sys_pipe2(struct cpu *c, const uint64_t a[6])
{
    void *fds = guest_buf(c, a[0], 2 * sizeof(int), PROT_WRITE);
    return fds ? host_ret(syscall(SYS_pipe2, fds, (int)a[1])) : -EFAULT;
}

int64_t sys_fcntl(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], cmd = (int)a[1];
    switch (cmd) {
    case F_DUPFD: case F_DUPFD_CLOEXEC: case F_GETFD: case F_SETFD: case F_GETFL:
    case F_SETFL: case F_GETOWN: case F_SETOWN: case F_GETSIG: case F_SETSIG:
    case F_GETLEASE: case F_SETLEASE: case F_NOTIFY: case F_GETPIPE_SZ: case F_SETPIPE_SZ:
    case F_ADD_SEALS: case F_GET_SEALS:
        return host_ret(syscall(SYS_fcntl, fd, cmd, a[2]));
    case F_GETLK: case F_SETLK: case F_SETLKW: case F_OFD_GETLK: case F_OFD_SETLK:
    case F_OFD_SETLKW: {
        void *fl = guest_buf(c, a[2], sizeof(struct flock),
                             cmd == F_GETLK || cmd == F_OFD_GETLK ? PROT_WRITE : PROT_READ);
        return fl ? host_ret(syscall(SYS_fcntl, fd, cmd, fl)) : -EFAULT;
    }
    default:
        fprintf(stderr, "elfemu: unsupported fcntl command %d: -EINVAL\n", cmd);
        return -EINVAL;
    }
}

/* ioctl: only requests whose argument size is known can be checked; the
 * others are refused and logged rather than handed a raw guest pointer. */
int64_t sys_ioctl(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0];
    unsigned long req = (unsigned long)(uint32_t)a[1];
    size_t size;
    int prot;
    switch (req) {
    case TCGETS: size = 36; prot = PROT_WRITE; break;              /* kernel struct termios */
    case TCSETS: case TCSETSW: case TCSETSF: size = 36; prot = PROT_READ; break;
    case TIOCGWINSZ: size = sizeof(struct winsize); prot = PROT_WRITE; break;
    case TIOCSWINSZ: size = sizeof(struct winsize); prot = PROT_READ; break;
    case TIOCGPGRP: case FIONREAD: case TIOCGSID: size = sizeof(int); prot = PROT_WRITE; break;
    case TIOCSPGRP: case FIONBIO: case FIOASYNC: size = sizeof(int); prot = PROT_READ; break;
    case FIOCLEX: case FIONCLEX: case TIOCSCTTY: case TIOCNOTTY:
        return host_ret(syscall(SYS_ioctl, fd, req, a[2]));
    default:
        fprintf(stderr, "elfemu: unsupported ioctl %#lx on fd %d: -ENOTTY\n", req, fd);
        return -ENOTTY;
    }
    void *arg = guest_buf(c, a[2], size, prot);
    return arg ? host_ret(syscall(SYS_ioctl, fd, req, arg)) : -EFAULT;
}

int64_t sys_statfs(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = path_arg(c, AT_FDCWD, a[0], 0, &hp);
    if (err)
        return err;
    void *st = guest_buf(c, a[1], sizeof(struct statfs), PROT_WRITE);
    return st ? host_ret(syscall(SYS_statfs, hp.path, st)) : -EFAULT;
}

int64_t sys_fstatfs(struct cpu *c, const uint64_t a[6])
{
    void *st = guest_buf(c, a[1], sizeof(struct statfs), PROT_WRITE);
    return st ? host_ret(syscall(SYS_fstatfs, (int)a[0], st)) : -EFAULT;
}
