/* Vectored, positional and in-kernel copying I/O for x86_64 guests: readv,
 * writev, preadv(2), pwritev(2), sendfile, splice, tee, vmsplice,
 * copy_file_range, sync_file_range, readahead.
 *
 * struct iovec has the host's layout for x86_64 guests, but each element's
 * base is a guest address: the array is rebuilt element by element with
 * guest_ptr(), so the host kernel checks the descriptor, the lengths and
 * the buffers in its own order.  Offsets passed by pointer (loff_t *) are
 * handed to the host in guest memory likewise. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "syscalls/fs.h"

const struct iovec *fs_iovec_arg(struct cpu *c, uint64_t addr, uint64_t n, int prot,
                                struct iovec *out)
{
    /* Too many elements: the host says -EINVAL for the count itself. */
    if (n > IOV_MAX)
        return HOST_FAULT_ADDR;
    struct guest_iovec {
        uint64_t base, len;
    } g;
    /* The kernel transfers at most MAX_RW_COUNT bytes in all, so a huge
     * length on a small buffer is no fault when its first MAX_RW_COUNT
     * bytes lie in the address space (a single element is clipped before
     * its check; the host still checks the whole of the others against its
     * own address space): only the part the kernel may use is checked
     * against the guest space. */
    const uint64_t max_rw = INT_MAX & ~(uint64_t)(MM_PAGE_SIZE - 1);
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (c->bits == 32) { /* struct iovec of i386: two 32-bit words */
            uint32_t w[2];
            if (copy_from_guest(c, w, addr + i * sizeof(w), sizeof(w)))
                return HOST_FAULT_ADDR;
            g.base = w[0];
            /* compat_ssize_t: a length with bit 31 set is negative (-EINVAL). */
            g.len = (uint64_t)(int64_t)(int32_t)w[1];
        } else if (copy_from_guest(c, &g, addr + i * sizeof(g), sizeof(g))) {
            return HOST_FAULT_ADDR;
        }
        /* A negative length stays as it is: the host's -EINVAL. */
        uint64_t len = (int64_t)g.len < 0 ? g.len : g.len < max_rw - total ? g.len : max_rw - total;
        if ((int64_t)g.len >= 0)
            total += len;
        out[i].iov_base = guest_ptr(c, g.base, len, prot);
        out[i].iov_len = g.len;
    }
    return out;
}

/* One handler for the eight vectored calls. */
static int64_t vectored(struct cpu *c, const uint64_t a[6], long nr, bool write,
                        bool positional, bool flags)
{
    int fd = (int)a[0];
    struct iovec buf[IOV_MAX];
    const struct iovec *iov = fs_iovec_arg(c, a[1], a[2], write ? PROT_READ : PROT_WRITE, buf);
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

/* The offsets passed by pointer (loff_t *) have the host's layout: the host
 * reads and writes them in guest memory itself, in the kernel's order. */
static void *offset_ptr(struct cpu *c, uint64_t addr)
{
    return addr ? guest_ptr(c, addr, sizeof(int64_t), PROT_READ | PROT_WRITE) : NULL;
}

int64_t sys_sendfile(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sendfile, (int)a[0], (int)a[1], offset_ptr(c, a[2]), a[3]));
}

int64_t sys_copy_file_range(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_copy_file_range, (int)a[0], offset_ptr(c, a[1]), (int)a[2],
                            offset_ptr(c, a[3]), a[4], (unsigned)a[5]));
}

int64_t sys_splice(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_splice, (int)a[0], offset_ptr(c, a[1]), (int)a[2],
                            offset_ptr(c, a[3]), (size_t)a[4], (unsigned)a[5]));
}

int64_t sys_tee(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_tee, (int)a[0], (int)a[1], (size_t)a[2], (unsigned)a[3]));
}

/* vmsplice(pipe, iov, n, flags): guest memory into a pipe (its write end:
 * the buffers are read) or out of it (the read end: they are written). */
int64_t sys_vmsplice(struct cpu *c, const uint64_t a[6])
{
    /* Which way the data goes decides which pages must be writable; the
     * host checks the descriptor and the flags itself. */
    int fl = fcntl((int)a[0], F_GETFL);
    int prot = fl >= 0 && (fl & O_ACCMODE) == O_RDONLY ? PROT_WRITE : PROT_READ;
    struct iovec buf[IOV_MAX];
    const struct iovec *iov = fs_iovec_arg(c, a[1], a[2], prot, buf);
    return host_ret(syscall(SYS_vmsplice, (int)a[0], iov, a[2], (unsigned)a[3]));
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
