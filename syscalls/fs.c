/* Files and descriptors for x86_64 guests.  The x86_64 structures (stat,
 * iovec, termios, winsize, dirent64, flock) have the host's layout, so the
 * calls go to the host kernel with the guest buffer translated after its
 * bounds and protection were checked.  Paths go through syscalls/paths.c
 * (the -L root and the /proc views the emulator must provide).
 * Vectored and positional I/O: fs_io.c; descriptors and fcntl: fs_fd.c;
 * metadata: fs_meta.c and fs_paths.c; ioctl: ioctl.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/paths.h"
#include "syscalls/strace.h"
#include "syscalls/syscalls.h"

/* A guest path argument translated for the host (syscalls/paths.c: the -L
 * root, the /proc views) relative to dirfd; 0 or -errno of the translation.
 * An unreadable or overlong path is no error here: hp then carries the
 * guest's own address (guest_ptr()), and the host call that follows fails
 * on it with -EFAULT or -ENAMETOOLONG in the kernel's order, after the
 * flags and descriptors were checked, exactly as Linux answers.  So hp.path
 * may only be handed to host calls. */
int fs_path_arg(struct cpu *c, int dirfd, uint64_t addr, int flags, struct host_path *hp)
{
    int err;
    const char *p = guest_str(c, addr, GUEST_PATH_MAX, &err);
    if (p)
        return path_resolve(c, dirfd, p, flags, hp);
    hp->dirfd = dirfd;
    /* A null path stays null: with AT_EMPTY_PATH the kernel takes it for
     * "" (statx, newfstatat... since Linux 6.11), else it is -EFAULT. */
    hp->path = addr ? guest_ptr(c, addr, 1, PROT_READ) : NULL;
    hp->proc = 0;
    hp->tid = 0;
    return 0;
}

void fs_log_once(struct cpu *c, const char *what, uint64_t value)
{
    /* Per thread, so no lock: a few distinct requests per program at most. */
    static __thread uint64_t seen[32];
    static __thread unsigned nseen;
    if (!c->log_unimplemented)
        return;
    for (unsigned i = 0; i < nseen; i++)
        if (seen[i] == value)
            return;
    if (nseen < 32)
        seen[nseen++] = value;
    fprintf(stderr, "elfemu: unsupported %s %#llx\n", what, (unsigned long long)value);
}

int64_t sys_read(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_read, (int)a[0], guest_ptr(c, a[1], a[2], PROT_WRITE), a[2]));
}

int64_t sys_write(struct cpu *c, const uint64_t a[6])
{
    uint64_t len = c->bits == 32 ? (uint32_t)a[2] : a[2];
    return host_ret(syscall(SYS_write, (int)a[0], guest_ptr(c, a[1], len, PROT_READ), len));
}

int64_t sys_pread64(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_pread64, (int)a[0], guest_ptr(c, a[1], a[2], PROT_WRITE), a[2], a[3]));
}

int64_t sys_pwrite64(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_pwrite64, (int)a[0], guest_ptr(c, a[1], a[2], PROT_READ), a[2], a[3]));
}

int64_t sys_close(struct cpu *c, const uint64_t a[6])
{
    /* --strace's and the embedder's files are not open as far as the guest
     * knows (sys_reserve_fd). */
    if (sys_fd_reserved((int)a[0]))
        return -EBADF;
    return host_ret(syscall(SYS_close, (int)a[0]));
}

int64_t sys_lseek(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_lseek, (int)a[0], a[1], (int)a[2]));
}

int64_t sys_fstat(struct cpu *c, const uint64_t a[6])
{
    struct stat st;
    if (syscall(SYS_fstat, (int)a[0], &st) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &st, sizeof(st));
}

int64_t sys_newfstatat(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, (int)a[0], a[1], (a[3] & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
    if (err)
        return err;
    void *st = guest_ptr(c, a[2], sizeof(struct stat), PROT_WRITE);
    return host_ret(syscall(SYS_newfstatat, hp.dirfd, hp.path, st, (int)a[3]));
}

int64_t sys_openat(struct cpu *c, const uint64_t a[6])
{
    int err;
    const char *p = guest_str(c, a[1], GUEST_PATH_MAX, &err);
    if (!p) /* the host checks flags first, then fails on the path (fs_path_arg()) */
        return host_ret(syscall(SYS_openat, (int)a[0], guest_ptr(c, a[1], 1, PROT_READ),
                                (int)a[2], (mode_t)a[3]));
    return path_openat(c, (int)a[0], p, (int)a[2], (mode_t)a[3]);
}

int64_t sys_open(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0, 0 };
    return sys_openat(c, b);
}

int64_t sys_creat(struct cpu *c, const uint64_t a[6])
{
    /* creat() always opens with O_LARGEFILE (0100000), for i386 callers
     * too (force_o_largefile() of a 64-bit kernel). */
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC | 0100000, a[1], 0, 0 };
    return sys_openat(c, b);
}

/* openat2(dirfd, path, struct open_how *how, size): the structure is
 * extensible (copy_struct_from_user()): smaller than the first version is
 * -EINVAL, larger than a page -E2BIG, and bytes we do not know must be 0. */
int64_t sys_openat2(struct cpu *c, const uint64_t a[6])
{
    uint64_t size = a[3];
    if (size < 24) /* OPEN_HOW_SIZE_VER0 */
        return -EINVAL;
    if (size > MM_PAGE_SIZE)
        return -E2BIG;
    const uint8_t *g = guest_buf(c, a[2], size, PROT_READ);
    if (!g)
        return -EFAULT;
    struct open_how how = { 0 };
    memcpy(&how, g, size < sizeof(how) ? size : sizeof(how));
    for (uint64_t i = sizeof(how); i < size; i++)
        if (g[i])
            return -E2BIG;
    int err;
    const char *p = guest_str(c, a[1], GUEST_PATH_MAX, &err);
    if (!p) /* the host checks how first, then fails on the path */
        return host_ret(syscall(SYS_openat2, (int)a[0], guest_ptr(c, a[1], 1, PROT_READ), &how,
                                sizeof(how)));
    struct host_path hp;
    int flags = (how.flags & O_NOFOLLOW) ? PATH_NOFOLLOW : 0;
    if ((err = path_resolve(c, (int)a[0], p, flags, &hp)))
        return err;
    /* A /proc view the emulator serves: the host opens the same /proc file
     * first, so that how and the RESOLVE_* rules (no magic links, no
     * crossing into /proc...) give the kernel's answer; then the view is
     * opened as openat() would. */
    if (hp.proc) {
        long r = syscall(SYS_openat2, (int)a[0], p, &how, sizeof(how));
        if (r < 0)
            return -errno;
        close((int)r);
        return path_openat(c, (int)a[0], p, (int)how.flags, (mode_t)how.mode);
    }
    return host_ret(syscall(SYS_openat2, hp.dirfd, hp.path, &how, sizeof(how)));
}

int64_t sys_faccessat2(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, (int)a[0], a[1], (a[3] & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
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
    /* do_readlinkat(): the size, then the path, then the buffer. */
    if ((int)a[3] <= 0)
        return -EINVAL;
    int err;
    const char *g = guest_str(c, a[1], GUEST_PATH_MAX, &err);
    if (!g)
        return host_ret(syscall(SYS_readlinkat, (int)a[0], guest_ptr(c, a[1], 1, PROT_READ),
                                guest_ptr(c, a[2], a[3], PROT_WRITE), (int)a[3]));
    char target[PATH_MAX];
    size_t size = (unsigned)a[3] < sizeof(target) ? (unsigned)a[3] : sizeof(target);
    int64_t n = path_readlinkat(c, (int)a[0], g, target, size);
    if (n > 0 && copy_to_guest(c, a[2], target, (uint64_t)n))
        return -EFAULT;
    return n;
}

int64_t sys_readlink(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], a[2], 0, 0 };
    return sys_readlinkat(c, b);
}

int64_t sys_getcwd(struct cpu *c, const uint64_t a[6])
{
    /* The kernel builds the path, checks the size (-ERANGE), then copies. */
    char cwd[PATH_MAX + 1];
    int64_t n = path_getcwd(cwd, a[1] < sizeof(cwd) ? a[1] : sizeof(cwd));
    if (n > 0 && copy_to_guest(c, a[0], cwd, (uint64_t)n))
        return -EFAULT;
    return n;
}

int64_t sys_getdents64(struct cpu *c, const uint64_t a[6])
{
    unsigned count = (unsigned)a[2];
    return host_ret(syscall(SYS_getdents64, (int)a[0], guest_ptr(c, a[1], count, PROT_WRITE), count));
}

/* The old getdents (struct linux_dirent, d_type in the last byte of each
 * record) has the same layout for x86_64 guests and the host. */
int64_t sys_getdents(struct cpu *c, const uint64_t a[6])
{
    unsigned count = (unsigned)a[2];
    return host_ret(syscall(SYS_getdents, (int)a[0], guest_ptr(c, a[1], count, PROT_WRITE), count));
}

int64_t sys_statfs(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, AT_FDCWD, a[0], 0, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_statfs, hp.path, guest_ptr(c, a[1], sizeof(struct statfs), PROT_WRITE)));
}

int64_t sys_fstatfs(struct cpu *c, const uint64_t a[6])
{
    struct statfs st;
    if (syscall(SYS_fstatfs, (int)a[0], &st) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &st, sizeof(st));
}
