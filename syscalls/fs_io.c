/* Vectored, positional and in-kernel copying I/O for x86_64 guests: readv,
 * writev, preadv(2), pwritev(2), sendfile, splice, tee, vmsplice,
 * copy_file_range, sync_file_range, readahead.
 *
 * struct iovec has the host's layout for x86_64 guests, but each element's
 * base is a guest address: the array is rebuilt element by element with
 * every buffer checked.  Offsets passed by pointer (loff_t *) are read into
 * a host copy and written back after the call, in the kernel's order. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "syscalls/fs.h"

int fs_iovec_arg(struct cpu *c, uint64_t addr, uint64_t n, int prot, struct iovec *out)
{
    if (n > IOV_MAX)
        return -EINVAL;
    struct guest_iovec {
        uint64_t base, len;
    } g;
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (copy_from_guest(c, &g, addr + i * sizeof(g), sizeof(g)))
            return -EFAULT;
        /* import_iovec(): a length that is negative as ssize_t, or a sum
         * that overflows it, is -EINVAL. */
        if ((int64_t)g.len < 0 || g.len > (uint64_t)INT64_MAX - total)
            return -EINVAL;
        total += g.len;
        out[i].iov_base = guest_buf(c, g.base, g.len, prot);
        out[i].iov_len = g.len;
        if (!out[i].iov_base)
            return -EFAULT;
    }
    return 0;
}

/* The kernel checks the descriptor (and its mode) before importing the
 * vector, and a positional call on an unseekable file fails -ESPIPE. */
static int64_t iov_error(int fd, int want_write, bool positional, int e)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_PATH))
        return -EBADF;
    int acc = fl & O_ACCMODE;
    if (want_write ? acc == O_RDONLY : acc == O_WRONLY)
        return -EBADF;
    if (positional && lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE)
        return -ESPIPE;
    return e;
}

/* One handler for the eight vectored calls. */
static int64_t vectored(struct cpu *c, const uint64_t a[6], long nr, bool write,
                        bool positional, bool flags)
{
    int fd = (int)a[0];
    /* preadv/pwritev: a negative offset is -EINVAL before anything else
     * (preadv2's -1 means "the current position"). */
    if (positional && (int64_t)a[3] < 0 && !(flags && (int64_t)a[3] == -1))
        return -EINVAL;
    struct iovec iov[IOV_MAX];
    int e = fs_iovec_arg(c, a[1], a[2], write ? PROT_READ : PROT_WRITE, iov);
    if (e)
        return iov_error(fd, write, positional && (int64_t)a[3] != -1, e);
    if (!positional)
        return host_ret(syscall(nr, fd, iov, a[2]));
    if (!flags)
        return host_ret(syscall(nr, fd, iov, a[2], a[3], a[4]));
    return host_ret(syscall(nr, fd, iov, a[2], a[3], a[4], (int)a[5]));
}

int64_t sys_readv(struct cpu *c, const uint64_t a[6])
{
    return vectored(c, a, SYS_readv, false, false, false);
}

int64_t sys_writev(struct cpu *c, const uint64_t a[6])
{
    return vectored(c, a, SYS_writev, true, false, false);
}

int64_t sys_preadv(struct cpu *c, const uint64_t a[6])
{
    return vectored(c, a, SYS_preadv, false, true, false);
}

int64_t sys_pwritev(struct cpu *c, const uint64_t a[6])
{
    return vectored(c, a, SYS_pwritev, true, true, false);
}

int64_t sys_preadv2(struct cpu *c, const uint64_t a[6])
{
    return vectored(c, a, SYS_preadv2, false, true, true);
}

int64_t sys_pwritev2(struct cpu *c, const uint64_t a[6])
{
    return vectored(c, a, SYS_pwritev2, true, true, true);
}

static bool fd_valid(int fd)
{
    return fcntl(fd, F_GETFD) >= 0;
}

/* sendfile(out, in, loff_t *offset, count): the offset is read before the
 * descriptors are looked at and written back after a transfer. */
int64_t sys_sendfile(struct cpu *c, const uint64_t a[6])
{
    int64_t off = 0;
    if (a[2] && copy_from_guest(c, &off, a[2], sizeof(off)))
        return -EFAULT;
    long r = syscall(SYS_sendfile, (int)a[0], (int)a[1], a[2] ? &off : NULL, a[3]);
    if (r < 0)
        return -errno;
    if (a[2] && copy_to_guest(c, a[2], &off, sizeof(off)))
        return -EFAULT;
    return r;
}

/* copy_file_range(in, loff_t *off_in, out, loff_t *off_out, len, flags):
 * descriptors first, then the offsets; written back when bytes moved. */
int64_t sys_copy_file_range(struct cpu *c, const uint64_t a[6])
{
    if (!fd_valid((int)a[0]) || !fd_valid((int)a[2]))
        return -EBADF;
    int64_t off_in = 0, off_out = 0;
    if (a[1] && copy_from_guest(c, &off_in, a[1], sizeof(off_in)))
        return -EFAULT;
    if (a[3] && copy_from_guest(c, &off_out, a[3], sizeof(off_out)))
        return -EFAULT;
    long r = syscall(SYS_copy_file_range, (int)a[0], a[1] ? &off_in : NULL, (int)a[2],
                     a[3] ? &off_out : NULL, a[4], (unsigned)a[5]);
    if (r < 0)
        return -errno;
    if (r > 0 && a[1] && copy_to_guest(c, a[1], &off_in, sizeof(off_in)))
        return -EFAULT;
    if (r > 0 && a[3] && copy_to_guest(c, a[3], &off_out, sizeof(off_out)))
        return -EFAULT;
    return r;
}

static bool is_pipe(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* splice(in, loff_t *off_in, out, loff_t *off_out, len, flags): like
 * do_splice(), an offset given for a pipe is -ESPIPE before it is read. */
int64_t sys_splice(struct cpu *c, const uint64_t a[6])
{
    int in = (int)a[0], out = (int)a[2];
    if (a[4] == 0)
        return 0;
    if ((unsigned)a[5] & ~(unsigned)(SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE |
                                     SPLICE_F_GIFT))
        return -EINVAL;
    if (!fd_valid(in) || !fd_valid(out))
        return -EBADF;
    int64_t off_in = 0, off_out = 0;
    if (a[1] && !is_pipe(in) && copy_from_guest(c, &off_in, a[1], sizeof(off_in)))
        return -EFAULT;
    if (a[3] && !is_pipe(out) && copy_from_guest(c, &off_out, a[3], sizeof(off_out)))
        return -EFAULT;
    long r = syscall(SYS_splice, in, a[1] ? &off_in : NULL, out, a[3] ? &off_out : NULL,
                     (size_t)a[4], (unsigned)a[5]);
    if (r < 0)
        return -errno;
    if (a[1] && copy_to_guest(c, a[1], &off_in, sizeof(off_in)))
        return -EFAULT;
    if (a[3] && copy_to_guest(c, a[3], &off_out, sizeof(off_out)))
        return -EFAULT;
    return r;
}

int64_t sys_tee(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_tee, (int)a[0], (int)a[1], (size_t)a[2], (unsigned)a[3]));
}

/* vmsplice(pipe, iov, n, flags): guest memory into a pipe (its write end:
 * the buffers are read) or out of it (the read end: they are written). */
int64_t sys_vmsplice(struct cpu *c, const uint64_t a[6])
{
    int fl = fcntl((int)a[0], F_GETFL);
    if (fl < 0)
        return -EBADF;
    int prot = (fl & O_ACCMODE) == O_RDONLY ? PROT_WRITE : PROT_READ;
    struct iovec iov[IOV_MAX];
    int e = fs_iovec_arg(c, a[1], a[2], prot, iov);
    return e ? e : host_ret(syscall(SYS_vmsplice, (int)a[0], iov, a[2], (unsigned)a[3]));
}

int64_t sys_sync_file_range(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sync_file_range, (int)a[0], (int64_t)a[1], (int64_t)a[2],
                            (unsigned)a[3]));
}

int64_t sys_readahead(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_readahead, (int)a[0], (int64_t)a[1], (size_t)a[2]));
}
