/* File calls of i386 guests whose structures or arguments differ from
 * x86_64's: the three stat layouts (the old one, struct stat, the packed
 * stat64), statfs and statfs64, the 32-bit and packed 64-bit struct flock
 * of fcntl/fcntl64, the 32-bit linux_dirent of getdents, signed 32-bit
 * offsets (lseek, truncate, sendfile's off_t *), and 64-bit offsets split
 * over two registers in i386's argument order (pread64, fallocate...).
 *
 * Each structure is filled as the host kernel's compat code fills it for a
 * 32-bit process on x86_64 (fs/stat.c cp_compat_stat(), cp_stat64() of
 * arch/x86, fs/statfs.c put_compat_statfs(64), fs/fcntl.c): the same
 * EOVERFLOW rules, the same untouched padding.  Directory reads and seeks
 * go to the host's i386 ABI (host_ia32.h): the positions a filesystem
 * gives a 32-bit caller differ from a 64-bit caller's. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/host_ia32.h"
#include "syscalls/syscalls.h"

/* A 64-bit value from two 32-bit registers, low word first. */
static uint64_t pair(uint64_t lo, uint64_t hi)
{
    return (uint32_t)lo | ((uint64_t)(uint32_t)hi << 32);
}

/* ------------------------------------------------------------ stat */

/* struct __old_kernel_stat as the x86_64 kernel writes it for i386. */
struct old_stat_ia32 {
    uint16_t dev, ino, mode, nlink, uid, gid, rdev;
    uint32_t size, atime, mtime, ctime;
};
_Static_assert(sizeof(struct old_stat_ia32) == 32, "__old_kernel_stat");

/* struct compat_stat (i386's struct stat). */
struct stat_ia32 {
    uint32_t dev, ino;
    uint16_t mode, nlink, uid, gid;
    uint32_t rdev, size, blksize, blocks;
    uint32_t atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
    uint32_t unused4, unused5;
};
_Static_assert(sizeof(struct stat_ia32) == 64, "compat_stat");

/* struct stat64 of i386: packed, 96 bytes, with two pads the kernel never
 * writes (cp_stat64() stores field by field). */
struct stat64_ia32 {
    uint64_t dev;
    uint32_t pad0, ino32, mode, nlink, uid, gid;
    uint64_t rdev;
    uint32_t pad3;
    int64_t size;
    uint32_t blksize;
    uint64_t blocks;
    uint32_t atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
    uint64_t ino;
} __attribute__((packed));
_Static_assert(sizeof(struct stat64_ia32) == 96, "i386 stat64");

/* high2lowuid(): an id beyond 16 bits becomes the overflow id the kernel
 * is configured with. */
static uint16_t low_id(uint32_t id, const char *overflow_file)
{
    if (id <= 0xffff)
        return (uint16_t)id;
    unsigned v = 65534; /* the kernel's default, if the file cannot be read */
    FILE *f = fopen(overflow_file, "re");
    if (f) {
        if (fscanf(f, "%u", &v) != 1)
            v = 65534;
        fclose(f);
    }
    return (uint16_t)v;
}

/* The host's stat of a path (dirfd, path, AT_* flags) or, with path_addr
 * UINT64_MAX, of descriptor dirfd. */
static int64_t host_stat(struct cpu *c, int dirfd, uint64_t path_addr, int flags, struct stat *st)
{
    if (path_addr == UINT64_MAX)
        return host_ret(syscall(SYS_fstat, dirfd, st));
    struct host_path hp;
    int err = fs_path_arg(c, dirfd, path_addr, (flags & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_newfstatat, hp.dirfd, hp.path, st, flags));
}

/* new_encode_dev()'s value (what st_dev holds) in old_encode_dev()'s form. */
static uint16_t old_dev(uint64_t d)
{
    return (uint16_t)((major(d) << 8) | minor(d));
}

static int64_t put_old_stat(struct cpu *c, int64_t r, const struct stat *st, uint64_t addr)
{
    if (r < 0)
        return r;
    struct old_stat_ia32 o = {
        .dev = old_dev(st->st_dev), .ino = (uint16_t)st->st_ino, .mode = (uint16_t)st->st_mode,
        .nlink = (uint16_t)st->st_nlink, .uid = low_id(st->st_uid, "/proc/sys/kernel/overflowuid"),
        .gid = low_id(st->st_gid, "/proc/sys/kernel/overflowgid"), .rdev = old_dev(st->st_rdev),
        /* No size check: on a 64-bit kernel the size is cut to 32 bits. */
        .size = (uint32_t)st->st_size, .atime = (uint32_t)st->st_atim.tv_sec,
        .mtime = (uint32_t)st->st_mtim.tv_sec, .ctime = (uint32_t)st->st_ctim.tv_sec,
    };
    if (o.ino != st->st_ino || o.nlink != st->st_nlink)
        return -EOVERFLOW;
    return copy_to_guest(c, addr, &o, sizeof(o));
}

static int64_t put_stat(struct cpu *c, int64_t r, const struct stat *st, uint64_t addr)
{
    if (r < 0)
        return r;
    struct stat_ia32 s = {
        .dev = (uint32_t)st->st_dev, .ino = (uint32_t)st->st_ino, .mode = (uint16_t)st->st_mode,
        .nlink = (uint16_t)st->st_nlink, .uid = low_id(st->st_uid, "/proc/sys/kernel/overflowuid"),
        .gid = low_id(st->st_gid, "/proc/sys/kernel/overflowgid"), .rdev = (uint32_t)st->st_rdev,
        .size = (uint32_t)st->st_size, .blksize = (uint32_t)st->st_blksize,
        .blocks = (uint32_t)st->st_blocks, .atime = (uint32_t)st->st_atim.tv_sec,
        .atime_nsec = (uint32_t)st->st_atim.tv_nsec, .mtime = (uint32_t)st->st_mtim.tv_sec,
        .mtime_nsec = (uint32_t)st->st_mtim.tv_nsec, .ctime = (uint32_t)st->st_ctim.tv_sec,
        .ctime_nsec = (uint32_t)st->st_ctim.tv_nsec,
    };
    if (s.ino != st->st_ino || s.nlink != st->st_nlink || (uint64_t)st->st_size > INT32_MAX)
        return -EOVERFLOW;
    return copy_to_guest(c, addr, &s, sizeof(s));
}

static int64_t put_stat64(struct cpu *c, int64_t r, const struct stat *st, uint64_t addr)
{
    if (r < 0)
        return r;
    struct stat64_ia32 *g = guest_buf(c, addr, sizeof(*g), PROT_WRITE);
    if (!g)
        return -EFAULT;
    /* Field by field: pad0 and pad3 keep what the guest had there. */
    g->dev = st->st_dev;
    g->ino32 = (uint32_t)st->st_ino;
    g->mode = st->st_mode;
    g->nlink = (uint32_t)st->st_nlink;
    g->uid = st->st_uid;
    g->gid = st->st_gid;
    g->rdev = st->st_rdev;
    g->size = st->st_size;
    g->blksize = (uint32_t)st->st_blksize;
    g->blocks = (uint64_t)st->st_blocks;
    g->atime = (uint32_t)st->st_atim.tv_sec;
    g->atime_nsec = (uint32_t)st->st_atim.tv_nsec;
    g->mtime = (uint32_t)st->st_mtim.tv_sec;
    g->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
    g->ctime = (uint32_t)st->st_ctim.tv_sec;
    g->ctime_nsec = (uint32_t)st->st_ctim.tv_nsec;
    g->ino = st->st_ino;
    return 0;
}

#define FD_STAT UINT64_MAX

/* stat, lstat and fstat in each of the three i386 layouts, the only
 * difference being the filler: STAT_CALLS(pre, post, put) defines
 * sys_<pre>stat<post>_ia32, sys_<pre>lstat<post>_ia32 and
 * sys_<pre>fstat<post>_ia32 (path or fd in a[0], the buffer in a[1]). */
#define STAT_CALLS(pre, post, put)                                                         \
    int64_t sys_##pre##stat##post##_ia32(struct cpu *c, const uint64_t a[6])               \
    {                                                                                      \
        struct stat st;                                                                    \
        return put(c, host_stat(c, AT_FDCWD, a[0], 0, &st), &st, a[1]);                    \
    }                                                                                      \
    int64_t sys_##pre##lstat##post##_ia32(struct cpu *c, const uint64_t a[6])              \
    {                                                                                      \
        struct stat st;                                                                    \
        return put(c, host_stat(c, AT_FDCWD, a[0], AT_SYMLINK_NOFOLLOW, &st), &st, a[1]);  \
    }                                                                                      \
    int64_t sys_##pre##fstat##post##_ia32(struct cpu *c, const uint64_t a[6])              \
    {                                                                                      \
        struct stat st;                                                                    \
        return put(c, host_stat(c, (int)a[0], FD_STAT, 0, &st), &st, a[1]);                \
    }

STAT_CALLS(old, , put_old_stat) /* 18, 84, 28: struct __old_kernel_stat */
STAT_CALLS(, , put_stat)        /* 106, 107, 108: struct stat */
STAT_CALLS(, 64, put_stat64)    /* 195, 196, 197: struct stat64 */

/* fstatat64(dirfd, path, buf, flags): the host judges the flags. */
int64_t sys_fstatat64_ia32(struct cpu *c, const uint64_t a[6])
{
    struct stat st;
    return put_stat64(c, host_stat(c, (int)a[0], a[1], (int)a[3], &st), &st, a[2]);
}

/* ------------------------------------------------------------ statfs */

/* struct compat_statfs: every count in 32 bits. */
struct statfs_ia32 {
    uint32_t type, bsize, blocks, bfree, bavail, files, ffree;
    int32_t fsid[2];
    uint32_t namelen, frsize, flags, spare[4];
};
_Static_assert(sizeof(struct statfs_ia32) == 64, "compat_statfs");

/* struct compat_statfs64: packed, 84 bytes. */
struct statfs64_ia32 {
    uint32_t type, bsize;
    uint64_t blocks, bfree, bavail, files, ffree;
    int32_t fsid[2];
    uint32_t namelen, frsize, flags, spare[4];
} __attribute__((packed));
_Static_assert(sizeof(struct statfs64_ia32) == 84, "compat_statfs64");

static int64_t host_statfs(struct cpu *c, int fd, uint64_t path_addr, struct statfs *sf)
{
    if (path_addr == FD_STAT)
        return host_ret(syscall(SYS_fstatfs, fd, sf));
    struct host_path hp;
    int err = fs_path_arg(c, AT_FDCWD, path_addr, 0, &hp);
    if (err)
        return err;
    return host_ret(syscall(SYS_statfs, hp.path, sf));
}

static int64_t put_statfs(struct cpu *c, int64_t r, const struct statfs *k, uint64_t addr)
{
    if (r < 0)
        return r;
    const uint64_t high = 0xffffffff00000000ull;
    if (((uint64_t)k->f_blocks | k->f_bfree | k->f_bavail | (uint64_t)k->f_bsize |
         (uint64_t)k->f_frsize) & high)
        return -EOVERFLOW;
    /* f_files and f_ffree may be -1 ("no limit"), which 32 bits hold. */
    if ((k->f_files != (fsfilcnt_t)-1 && (k->f_files & high)) ||
        (k->f_ffree != (fsfilcnt_t)-1 && (k->f_ffree & high)))
        return -EOVERFLOW;
    struct statfs_ia32 s = {
        .type = (uint32_t)k->f_type, .bsize = (uint32_t)k->f_bsize,
        .blocks = (uint32_t)k->f_blocks, .bfree = (uint32_t)k->f_bfree,
        .bavail = (uint32_t)k->f_bavail, .files = (uint32_t)k->f_files,
        .ffree = (uint32_t)k->f_ffree, .fsid = { k->f_fsid.__val[0], k->f_fsid.__val[1] },
        .namelen = (uint32_t)k->f_namelen, .frsize = (uint32_t)k->f_frsize,
        .flags = (uint32_t)k->f_flags,
    };
    return copy_to_guest(c, addr, &s, sizeof(s));
}

static int64_t put_statfs64(struct cpu *c, int64_t r, const struct statfs *k, uint64_t addr)
{
    if (r < 0)
        return r;
    if (((uint64_t)k->f_bsize | (uint64_t)k->f_frsize) & 0xffffffff00000000ull)
        return -EOVERFLOW;
    struct statfs64_ia32 s = {
        .type = (uint32_t)k->f_type, .bsize = (uint32_t)k->f_bsize, .blocks = k->f_blocks,
        .bfree = k->f_bfree, .bavail = k->f_bavail, .files = k->f_files, .ffree = k->f_ffree,
        .fsid = { k->f_fsid.__val[0], k->f_fsid.__val[1] },
        .namelen = (uint32_t)k->f_namelen, .frsize = (uint32_t)k->f_frsize,
        .flags = (uint32_t)k->f_flags,
    };
    return copy_to_guest(c, addr, &s, sizeof(s));
}

int64_t sys_statfs_ia32(struct cpu *c, const uint64_t a[6])
{
    struct statfs sf;
    return put_statfs(c, host_statfs(c, -1, a[0], &sf), &sf, a[1]);
}

int64_t sys_fstatfs_ia32(struct cpu *c, const uint64_t a[6])
{
    struct statfs sf;
    return put_statfs(c, host_statfs(c, (int)a[0], FD_STAT, &sf), &sf, a[1]);
}

/* statfs64(path, size, buf): the size must be the structure's, checked
 * before anything else. */
int64_t sys_statfs64_ia32(struct cpu *c, const uint64_t a[6])
{
    if (a[1] != sizeof(struct statfs64_ia32))
        return -EINVAL;
    struct statfs sf;
    return put_statfs64(c, host_statfs(c, -1, a[0], &sf), &sf, a[2]);
}

int64_t sys_fstatfs64_ia32(struct cpu *c, const uint64_t a[6])
{
    if (a[1] != sizeof(struct statfs64_ia32))
        return -EINVAL;
    struct statfs sf;
    return put_statfs64(c, host_statfs(c, (int)a[0], FD_STAT, &sf), &sf, a[2]);
}

/* ------------------------------------------------------------ fcntl */

/* i386's lock commands: the 32-bit struct flock for 5-7, the packed
 * struct flock64 for 12-14 and the OFD commands. */
#define F_GETLK_IA32 5
#define F_SETLK_IA32 6
#define F_SETLKW_IA32 7
#define F_GETLK64_IA32 12
#define F_SETLK64_IA32 13
#define F_SETLKW64_IA32 14

struct flock_ia32 {
    int16_t type, whence;
    int32_t start, len, pid;
};
_Static_assert(sizeof(struct flock_ia32) == 16, "compat_flock");

struct flock64_ia32 {
    int16_t type, whence;
    int64_t start, len;
    int32_t pid;
} __attribute__((packed));
_Static_assert(sizeof(struct flock64_ia32) == 24, "compat_flock64");

static int64_t fcntl_lock_ia32(struct cpu *c, int fd, int cmd, uint64_t arg)
{
    bool small = cmd == F_GETLK_IA32 || cmd == F_SETLK_IA32 || cmd == F_SETLKW_IA32;
    struct flock h;
    if (small) {
        struct flock_ia32 g;
        if (copy_from_guest(c, &g, arg, sizeof(g)))
            return -EFAULT;
        h = (struct flock){ .l_type = g.type, .l_whence = g.whence, .l_start = g.start,
                            .l_len = g.len, .l_pid = g.pid };
    } else {
        struct flock64_ia32 g;
        if (copy_from_guest(c, &g, arg, sizeof(g)))
            return -EFAULT;
        h = (struct flock){ .l_type = g.type, .l_whence = g.whence, .l_start = g.start,
                            .l_len = g.len, .l_pid = g.pid };
    }
    int hcmd = cmd == F_GETLK_IA32 || cmd == F_GETLK64_IA32   ? F_GETLK
               : cmd == F_SETLK_IA32 || cmd == F_SETLK64_IA32 ? F_SETLK
               : cmd == F_SETLKW_IA32 || cmd == F_SETLKW64_IA32 ? F_SETLKW
                                                               : cmd;
    if (syscall(SYS_fcntl, fd, hcmd, &h) != 0)
        return -errno;
    if (hcmd != F_GETLK && hcmd != F_OFD_GETLK)
        return 0;
    if (small) {
        /* fixup_compat_flock(): a start beyond 32 bits cannot be told, a
         * length is cut to the largest one. */
        if (h.l_start > INT32_MAX)
            return -EOVERFLOW;
        struct flock_ia32 g = { .type = h.l_type, .whence = h.l_whence,
                                .start = (int32_t)h.l_start,
                                .len = h.l_len > INT32_MAX ? INT32_MAX : (int32_t)h.l_len,
                                .pid = h.l_pid };
        return copy_to_guest(c, arg, &g, sizeof(g));
    }
    struct flock64_ia32 g = { .type = h.l_type, .whence = h.l_whence, .start = h.l_start,
                              .len = h.l_len, .pid = h.l_pid };
    return copy_to_guest(c, arg, &g, sizeof(g));
}

/* fcntl64(fd, cmd, arg): the lock commands in i386's layouts; every other
 * command's argument means the same as for x86_64 (an int, or a structure
 * of the same layout: f_owner_ex, the uid pair, the u64 hints). */
int64_t sys_fcntl64_ia32(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], cmd = (int)a[1];
    switch (cmd) {
    case F_GETLK_IA32: case F_SETLK_IA32: case F_SETLKW_IA32:
    case F_GETLK64_IA32: case F_SETLK64_IA32: case F_SETLKW64_IA32:
    case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW: {
        /* As fcntl(): the descriptor first, an O_PATH one allows no lock. */
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || (fl & O_PATH))
            return -EBADF;
        return fcntl_lock_ia32(c, fd, cmd, a[2]);
    }
    default:
        return sys_fcntl(c, a);
    }
}

/* fcntl(fd, cmd, arg) is the same call on a 64-bit kernel: the 64-bit
 * lock commands are accepted there too (do_compat_fcntl64()). */
int64_t sys_fcntl_ia32(struct cpu *c, const uint64_t a[6])
{
    return sys_fcntl64_ia32(c, a);
}

/* ------------------------------------------------------------ directories */

/* The offsets of d_off and d_reclen in a record of getdents (struct
 * compat_linux_dirent: u32 ino, u32 off, u16 reclen, name, type in the last
 * byte) and of getdents64 (u64 ino, s64 off, u16 reclen, u8 type, name). */
struct dirent_form {
    unsigned off_at, off_size, reclen_at;
};
static const struct dirent_form form32 = { 4, 4, 8 }, form64 = { 8, 8, 16 };

/* How many bytes from addr on the guest may write, up to len. */
static uint64_t writable_prefix(struct cpu *c, uint64_t addr, uint64_t len)
{
    uint64_t done = 0;
    while (done < len) {
        uint64_t n = MM_PAGE_SIZE - ((addr + done) & (MM_PAGE_SIZE - 1));
        if (n > len - done)
            n = len - done;
        if (!guest_buf(c, addr + done, n, PROT_WRITE))
            break;
        done += n;
    }
    return done;
}

/* _llseek through the host's i386 ABI, the result in the bounce buffer's
 * last 8 bytes; the position or -errno. */
static int64_t seek_ia32(int fd, int64_t off, int whence, uint8_t *bounce)
{
    uint8_t *res = bounce + HOST_IA32_BOUNCE - 8;
    int64_t r = host_ia32_call(140, (uint32_t)fd, (uint32_t)((uint64_t)off >> 32), (uint32_t)off,
                               (uint32_t)(uintptr_t)res, (uint32_t)whence);
    if (r < 0)
        return r;
    int64_t pos;
    memcpy(&pos, res, sizeof(pos));
    return pos;
}

/* getdents and getdents64 of an i386 process, read by the host's i386
 * ABI into the bounce buffer.  When only a part of the guest's buffer can
 * be written, the records that fit in it are delivered and the directory
 * is put back at the first one that did not, as filldir() stops at the
 * first record it cannot store (-EFAULT when that is the first). */
static int64_t getdents_host_ia32(struct cpu *c, const uint64_t a[6], uint32_t nr,
                                  const struct dirent_form *form, uint8_t *b)
{
    int fd = (int)a[0];
    uint64_t addr = (uint32_t)a[1];
    uint32_t count = (uint32_t)a[2];
    /* A bigger count only lets more records come in one call. */
    uint32_t n = count < HOST_IA32_BOUNCE - 16 ? count : HOST_IA32_BOUNCE - 16;
    uint64_t ok = writable_prefix(c, addr, n);
    int64_t before = 0;
    if (ok < n) {
        before = seek_ia32(fd, 0, SEEK_CUR, b);
        if (before < 0) /* not a descriptor: the host says so again */
            before = 0;
    }
    int64_t r = host_ia32_call(nr, (uint32_t)fd, (uint32_t)(uintptr_t)b, n, 0, 0);
    if (r <= 0)
        return r;
    if (ok < n) {
        uint64_t used = 0;
        int64_t pos = before;
        while (used < (uint64_t)r) {
            uint16_t reclen;
            memcpy(&reclen, b + used + form->reclen_at, sizeof(reclen));
            if (used + reclen > ok)
                break;
            uint64_t off = 0;
            memcpy(&off, b + used + form->off_at, form->off_size);
            pos = form->off_size == 4 ? (int64_t)(uint32_t)off : (int64_t)off;
            used += reclen;
        }
        seek_ia32(fd, pos, SEEK_SET, b);
        if (used == 0)
            return -EFAULT;
        r = (int64_t)used;
    }
    return copy_to_guest(c, addr, b, (uint64_t)r) ? -EFAULT : r;
}

/* Without the host's i386 ABI: the x86_64 records converted, with the
 * positions a 64-bit caller gets (ext4 hashes may then not fit, and the
 * guest's C library reports EOVERFLOW for them).  A converted record is
 * never longer than the x86_64 one, so what the host read fits in count;
 * a count big enough for the i386 record but not for the x86_64 one gets
 * the host's -EINVAL. */
static int64_t getdents_converted(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0];
    uint32_t count = (uint32_t)a[2];
    uint8_t buf[32768], out[32768];
    uint32_t n = count < sizeof(buf) ? count : sizeof(buf);
    int64_t pos = lseek(fd, 0, SEEK_CUR);
    int64_t r = host_ret(syscall(SYS_getdents64, fd, buf, n));
    if (r <= 0)
        return r;
    uint64_t in = 0, len = 0;
    while (in < (uint64_t)r) {
        uint64_t ino;
        int64_t off;
        uint16_t reclen;
        memcpy(&ino, buf + in, 8);
        memcpy(&off, buf + in + 8, 8);
        memcpy(&reclen, buf + in + 16, 2);
        if ((uint32_t)ino != ino)
            break; /* compat_filldir(): -EOVERFLOW, the directory stays before it */
        const char *name = (const char *)buf + in + 19;
        size_t namlen = strlen(name);
        uint16_t out_len = (uint16_t)((10 + namlen + 2 + 3) & ~(size_t)3);
        uint32_t w[2] = { (uint32_t)ino, (uint32_t)off };
        memcpy(out + len, w, 8);
        memcpy(out + len + 8, &out_len, 2);
        memset(out + len + 10, 0, out_len - 10u);
        memcpy(out + len + 10, name, namlen);
        out[len + out_len - 1] = buf[in + 18]; /* d_type in the last byte */
        len += out_len;
        pos = off;
        in += reclen;
    }
    if (in < (uint64_t)r) {
        lseek(fd, pos, SEEK_SET);
        if (len == 0)
            return -EOVERFLOW;
    }
    return copy_to_guest(c, a[1], out, len) ? -EFAULT : (int64_t)len;
}

int64_t sys_getdents_ia32(struct cpu *c, const uint64_t a[6])
{
    uint8_t *b = host_ia32_available() ? host_ia32_bounce() : NULL;
    if (b)
        return getdents_host_ia32(c, a, 141, &form32, b);
    return getdents_converted(c, a);
}

int64_t sys_getdents64_ia32(struct cpu *c, const uint64_t a[6])
{
    uint8_t *b = host_ia32_available() ? host_ia32_bounce() : NULL;
    if (b)
        return getdents_host_ia32(c, a, 220, &form64, b);
    return sys_getdents64(c, a);
}

/* ------------------------------------------------------------ offsets */

/* lseek(fd, off_t, whence): a signed 32-bit offset.  On a 64-bit kernel
 * the resulting position is not checked against 32 bits (ksys_lseek()'s
 * off_t is 64-bit): the guest sees its low half.  A directory's positions
 * are the ones a 32-bit caller gets, hence the host's i386 ABI. */
int64_t sys_lseek_ia32(struct cpu *c, const uint64_t a[6])
{
    if (host_ia32_available())
        return host_ia32_call(19, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2], 0, 0);
    return host_ret(syscall(SYS_lseek, (int)a[0], (off_t)(int32_t)a[1], (int)a[2]));
}

/* _llseek(fd, offset_high, offset_low, loff_t *result, whence). */
int64_t sys__llseek(struct cpu *c, const uint64_t a[6])
{
    int64_t off = (int64_t)pair(a[2], a[1]);
    uint8_t *b = host_ia32_available() ? host_ia32_bounce() : NULL;
    int64_t r = b ? seek_ia32((int)a[0], off, (int)a[4], b)
                  : host_ret(lseek((int)a[0], off, (int)a[4]));
    if (r < 0)
        return r;
    return copy_to_guest(c, a[3], &r, sizeof(r)) ? -EFAULT : 0;
}

int64_t sys_truncate_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], (uint64_t)(int64_t)(int32_t)a[1], 0, 0, 0, 0 };
    return sys_truncate(c, b);
}

int64_t sys_ftruncate_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], (uint64_t)(int64_t)(int32_t)a[1], 0, 0, 0, 0 };
    return sys_ftruncate(c, b);
}

/* truncate64(path, low, high), ftruncate64(fd, low, high). */
int64_t sys_truncate64_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], pair(a[1], a[2]), 0, 0, 0, 0 };
    return sys_truncate(c, b);
}

int64_t sys_ftruncate64_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], pair(a[1], a[2]), 0, 0, 0, 0 };
    return sys_ftruncate(c, b);
}

/* pread64(fd, buf, count, low, high), pwrite64 likewise. */
int64_t sys_pread64_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], pair(a[3], a[4]), 0, 0 };
    return sys_pread64(c, b);
}

int64_t sys_pwrite64_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], pair(a[3], a[4]), 0, 0 };
    return sys_pwrite64(c, b);
}

/* preadv(fd, iov, n, low, high) and the others: the x86_64 calls take the
 * whole offset in "low" (their "high" is shifted out). */
int64_t sys_preadv_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], pair(a[3], a[4]), 0, 0 };
    return sys_preadv(c, b);
}

int64_t sys_pwritev_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], pair(a[3], a[4]), 0, 0 };
    return sys_pwritev(c, b);
}

int64_t sys_preadv2_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], pair(a[3], a[4]), 0, a[5] };
    return sys_preadv2(c, b);
}

int64_t sys_pwritev2_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], pair(a[3], a[4]), 0, a[5] };
    return sys_pwritev2(c, b);
}

/* fallocate(fd, mode, off low, off high, len low, len high). */
int64_t sys_fallocate_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], pair(a[2], a[3]), pair(a[4], a[5]), 0, 0 };
    return sys_fallocate(c, b);
}

/* fadvise64(fd, off low, off high, size_t len, advice). */
int64_t sys_fadvise64_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], pair(a[1], a[2]), (uint32_t)a[3], a[4], 0, 0 };
    return sys_fadvise64(c, b);
}

/* fadvise64_64(fd, off low, off high, len low, len high, advice). */
int64_t sys_fadvise64_64_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], pair(a[1], a[2]), pair(a[3], a[4]), a[5], 0, 0 };
    return sys_fadvise64(c, b);
}

/* readahead(fd, off low, off high, size_t count). */
int64_t sys_readahead_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], pair(a[1], a[2]), (uint32_t)a[3], 0, 0, 0 };
    return sys_readahead(c, b);
}

/* sync_file_range(fd, off low, off high, n low, n high, flags). */
int64_t sys_sync_file_range_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], pair(a[1], a[2]), pair(a[3], a[4]), a[5], 0, 0 };
    return sys_sync_file_range(c, b);
}

/* sendfile(out, in, off_t *offset, count): the offset is a signed 32-bit
 * word, read before anything else and written back after the transfer
 * (compat_sys_sendfile()); with it, do_sendfile() limits the transfer to
 * 2 GiB - 1 (MAX_NON_LFS): a start at or past the limit is -EOVERFLOW
 * after the descriptors were checked, a longer count is cut. */
int64_t sys_sendfile_ia32(struct cpu *c, const uint64_t a[6])
{
    uint64_t count = (uint32_t)a[3];
    if (!a[2])
        return host_ret(syscall(SYS_sendfile, (int)a[0], (int)a[1], NULL, count));
    int32_t off32;
    if (copy_from_guest(c, &off32, a[2], sizeof(off32)))
        return -EFAULT;
    off_t pos = off32;
    int64_t r;
    if (pos >= 0 && pos >= INT32_MAX) {
        /* The host checks the descriptors and the position with nothing to
         * transfer; what remains is the limit's error. */
        r = host_ret(syscall(SYS_sendfile, (int)a[0], (int)a[1], &pos, 0));
        if (r >= 0)
            r = -EOVERFLOW;
    } else {
        if (pos >= 0 && (uint64_t)pos + count > INT32_MAX)
            count = INT32_MAX - (uint64_t)pos;
        r = host_ret(syscall(SYS_sendfile, (int)a[0], (int)a[1], &pos, count));
    }
    off32 = (int32_t)pos;
    if (copy_to_guest(c, a[2], &off32, sizeof(off32)))
        return -EFAULT;
    return r;
}
