/* ioctl for x86_64 guests.
 *
 * An ioctl argument is an integer or a pointer whose size only the request
 * tells, so every request elfemu serves is listed below with its argument:
 * a value passed through, or a structure of known size copied in, out or
 * both through a host buffer.  A request not in the table gets -ENOTTY (the
 * kernel's answer to a request a file does not know) and one log line; no
 * guest pointer ever reaches the host unchecked.
 *
 * The structures have the same layout for an x86_64 guest and the host
 * kernel (same architecture), but note that the terminal calls use the
 * kernel's struct termios (36 bytes, c_cc[19], no speeds), not glibc's
 * (60 bytes); termios2 adds the two speeds (44 bytes).
 *
 * i386 guests (ia32_ioctl.c) use the same table for the requests whose
 * number and argument are the same for a 32-bit process; the entries
 * marked X86_64_ONLY are not (a long or a pointer in the argument or in the
 * number): ia32_ioctl.c converts those, or the i386 guest gets -ENOTTY. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/ioctl.h"

/* The kernel's struct termios / termios2 (include/uapi/asm-generic/termbits.h). */
struct linux_termios {
    uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
    uint8_t c_line;
    uint8_t c_cc[19];
};
struct linux_termios2 {
    struct linux_termios t;
    uint32_t c_ispeed, c_ospeed;
};
/* struct termio (TCGETA): four unsigned shorts, c_line, c_cc[8]. */
struct linux_termio {
    uint16_t c_iflag, c_oflag, c_cflag, c_lflag;
    uint8_t c_line;
    uint8_t c_cc[8];
};
_Static_assert(sizeof(struct linux_termios) == 36, "kernel struct termios");
_Static_assert(offsetof(struct linux_termios, c_cc) == 17, "kernel struct termios");
_Static_assert(sizeof(struct linux_termios2) == 44, "kernel struct termios2");
_Static_assert(sizeof(struct linux_termio) == 18, "kernel struct termio");

/* Request numbers (x86 uses the asm-generic ones). */
enum {
    IO_TCGETS = 0x5401, IO_TCSETS = 0x5402, IO_TCSETSW = 0x5403, IO_TCSETSF = 0x5404,
    IO_TCGETA = 0x5405, IO_TCSETA = 0x5406, IO_TCSETAW = 0x5407, IO_TCSETAF = 0x5408,
    IO_TCSBRK = 0x5409, IO_TCXONC = 0x540A, IO_TCFLSH = 0x540B, IO_TIOCEXCL = 0x540C,
    IO_TIOCNXCL = 0x540D, IO_TIOCSCTTY = 0x540E, IO_TIOCGPGRP = 0x540F,
    IO_TIOCSPGRP = 0x5410, IO_TIOCOUTQ = 0x5411, IO_TIOCSTI = 0x5412,
    IO_TIOCGWINSZ = 0x5413, IO_TIOCSWINSZ = 0x5414, IO_TIOCMGET = 0x5415,
    IO_TIOCMBIS = 0x5416, IO_TIOCMBIC = 0x5417, IO_TIOCMSET = 0x5418,
    IO_TIOCGSOFTCAR = 0x5419, IO_TIOCSSOFTCAR = 0x541A, IO_FIONREAD = 0x541B,
    IO_TIOCCONS = 0x541D, IO_TIOCPKT = 0x5420, IO_FIONBIO = 0x5421, IO_TIOCNOTTY = 0x5422,
    IO_TIOCSETD = 0x5423, IO_TIOCGETD = 0x5424, IO_TCSBRKP = 0x5425, IO_TIOCSBRK = 0x5427,
    IO_TIOCCBRK = 0x5428, IO_TIOCGSID = 0x5429,
    IO_TCGETS2 = 0x802C542A, IO_TCSETS2 = 0x402C542B, IO_TCSETSW2 = 0x402C542C,
    IO_TCSETSF2 = 0x402C542D,
    IO_TIOCGPTN = 0x80045430, IO_TIOCSPTLCK = 0x40045431, IO_TIOCGDEV = 0x80045432,
    IO_TIOCSIG = 0x40045436, IO_TIOCVHANGUP = 0x5437, IO_TIOCGPKT = 0x80045438,
    IO_TIOCGPTLCK = 0x80045439, IO_TIOCGEXCL = 0x80045440, IO_TIOCGPTPEER = 0x5441,
    IO_FIONCLEX = 0x5450, IO_FIOCLEX = 0x5451, IO_FIOASYNC = 0x5452,
    IO_TIOCGLCKTRMIOS = 0x5456, IO_TIOCSLCKTRMIOS = 0x5457, IO_TIOCSERGETLSR = 0x5459,
    IO_FIOQSIZE = 0x5460,
    IO_FIBMAP = 1, IO_FIGETBSZ = 2,
    IO_FS_IOC_GETFLAGS = 0x80086601, IO_FS_IOC_SETFLAGS = 0x40086602,
    IO_FS_IOC_GETVERSION = 0x80087601, IO_FS_IOC_SETVERSION = 0x40087602,
    IO_FS_IOC_FSGETXATTR = 0x801C581F,
    IO_FS_IOC_FSSETXATTR = 0x401C5820, IO_FS_IOC_FIEMAP = 0xC020660B, IO_FICLONE = 0x40049409, IO_FICLONERANGE = 0x4020940D,
    IO_BLKROGET = 0x125E, IO_BLKGETSIZE = 0x1260, IO_BLKRAGET = 0x1263, IO_BLKFRAGET = 0x1265,
    IO_BLKSECTGET = 0x1267, IO_BLKSSZGET = 0x1268, IO_BLKALIGNOFF = 0x127A,
    IO_BLKDISCARDZEROES = 0x127C, IO_BLKROTATIONAL = 0x127E, IO_HDIO_GETGEO = 0x0301,
    IO_BLKBSZGET = 0x80081270, IO_BLKBSZSET = 0x40081271, IO_BLKGETSIZE64 = 0x80081272, IO_BLKIOMIN = 0x1278,
    IO_BLKIOOPT = 0x1279, IO_BLKPBSZGET = 0x127B,
    IO_FIOSETOWN = 0x8901, IO_SIOCSPGRP = 0x8902, IO_FIOGETOWN = 0x8903, IO_SIOCGPGRP = 0x8904,
    IO_SIOCGSTAMP_OLD = 0x8906, IO_SIOCGSTAMPNS_OLD = 0x8907,
    IO_SIOCGSTAMP_NEW = 0x80108906, IO_SIOCGSTAMPNS_NEW = 0x80108907,
    IO_SIOCGIFDSTADDR = 0x8917, IO_SIOCGIFMETRIC = 0x891D, IO_SIOCGIFPFLAGS = 0x8935,
    IO_SIOCGIFTXQLEN = 0x8942,
    IO_SIOCATMARK = 0x8905, IO_SIOCGIFNAME = 0x8910, IO_SIOCGIFCONF = 0x8912,
    IO_SIOCGIFFLAGS = 0x8913, IO_SIOCGIFADDR = 0x8915, IO_SIOCGIFBRDADDR = 0x8919,
    IO_SIOCGIFNETMASK = 0x891B, IO_SIOCGIFMTU = 0x8921, IO_SIOCGIFHWADDR = 0x8927,
    IO_SIOCGIFINDEX = 0x8933,
    IO_RNDGETENTCNT = 0x80045200,
};

enum ioctl_arg { ARG_VALUE, ARG_IN, ARG_OUT, ARG_INOUT };

/* Or'ed into an entry's arg: not this way for an i386 guest. */
#define X86_64_ONLY 0x80

struct ioctl_desc {
    uint32_t req;
    uint8_t arg;  /* enum ioctl_arg, | X86_64_ONLY */
    uint8_t size; /* bytes of the structure for ARG_IN/OUT/INOUT */
};

#define IFREQ_SIZE 40 /* struct ifreq: IFNAMSIZ + a 24-byte union */

static const struct ioctl_desc ioctls[] = {
    /* terminals */
    { IO_TCGETS, ARG_OUT, 36 }, { IO_TCSETS, ARG_IN, 36 }, { IO_TCSETSW, ARG_IN, 36 },
    { IO_TCSETSF, ARG_IN, 36 }, { IO_TCGETS2, ARG_OUT, 44 }, { IO_TCSETS2, ARG_IN, 44 },
    { IO_TCSETSW2, ARG_IN, 44 }, { IO_TCSETSF2, ARG_IN, 44 }, { IO_TCGETA, ARG_OUT, 18 },
    { IO_TCSETA, ARG_IN, 18 }, { IO_TCSETAW, ARG_IN, 18 }, { IO_TCSETAF, ARG_IN, 18 },
    { IO_TIOCGLCKTRMIOS, ARG_OUT, 36 }, { IO_TIOCSLCKTRMIOS, ARG_IN, 36 },
    { IO_TCSBRK, ARG_VALUE, 0 }, { IO_TCSBRKP, ARG_VALUE, 0 }, { IO_TCXONC, ARG_VALUE, 0 },
    { IO_TCFLSH, ARG_VALUE, 0 }, { IO_TIOCSBRK, ARG_VALUE, 0 }, { IO_TIOCCBRK, ARG_VALUE, 0 },
    { IO_TIOCEXCL, ARG_VALUE, 0 }, { IO_TIOCNXCL, ARG_VALUE, 0 }, { IO_TIOCGEXCL, ARG_OUT, 4 },
    { IO_TIOCSCTTY, ARG_VALUE, 0 }, { IO_TIOCNOTTY, ARG_VALUE, 0 },
    { IO_TIOCCONS, ARG_VALUE, 0 }, { IO_TIOCVHANGUP, ARG_VALUE, 0 },
    { IO_TIOCSIG, ARG_VALUE, 0 }, { IO_TIOCGPTPEER, ARG_VALUE, 0 },
    { IO_TIOCGPGRP, ARG_OUT, 4 }, { IO_TIOCSPGRP, ARG_IN, 4 }, { IO_TIOCGSID, ARG_OUT, 4 },
    { IO_TIOCOUTQ, ARG_OUT, 4 }, { IO_TIOCSTI, ARG_IN, 1 },
    { IO_TIOCGWINSZ, ARG_OUT, 8 }, { IO_TIOCSWINSZ, ARG_IN, 8 },
    { IO_TIOCMGET, ARG_OUT, 4 }, { IO_TIOCMBIS, ARG_IN, 4 }, { IO_TIOCMBIC, ARG_IN, 4 },
    { IO_TIOCMSET, ARG_IN, 4 }, { IO_TIOCGSOFTCAR, ARG_OUT, 4 },
    { IO_TIOCSSOFTCAR, ARG_IN, 4 }, { IO_TIOCPKT, ARG_IN, 4 }, { IO_TIOCGPKT, ARG_OUT, 4 },
    { IO_TIOCSETD, ARG_IN, 4 }, { IO_TIOCGETD, ARG_OUT, 4 }, { IO_TIOCGDEV, ARG_OUT, 4 },
    { IO_TIOCGPTN, ARG_OUT, 4 }, { IO_TIOCSPTLCK, ARG_IN, 4 }, { IO_TIOCGPTLCK, ARG_OUT, 4 },
    { IO_TIOCSERGETLSR, ARG_OUT, 4 },
    /* any descriptor */
    { IO_FIONREAD, ARG_OUT, 4 }, { IO_FIONBIO, ARG_IN, 4 }, { IO_FIOASYNC, ARG_IN, 4 },
    { IO_FIOCLEX, ARG_VALUE, 0 }, { IO_FIONCLEX, ARG_VALUE, 0 }, { IO_FIOQSIZE, ARG_OUT, 8 },
    /* files and block devices */
    { IO_FIBMAP, ARG_INOUT, 4 }, { IO_FIGETBSZ, ARG_OUT, 4 },
    { IO_FS_IOC_GETFLAGS, ARG_OUT, 4 }, { IO_FS_IOC_SETFLAGS, ARG_IN, 4 },
    /* The kernel reads and writes an int for the version, a long in the
     * number: i386 has its own numbers (ext4's compat code refuses these). */
    { IO_FS_IOC_GETVERSION, ARG_OUT | X86_64_ONLY, 4 },
    { IO_FS_IOC_SETVERSION, ARG_IN | X86_64_ONLY, 4 }, { IO_FS_IOC_FSGETXATTR, ARG_OUT, 28 },
    { IO_FS_IOC_FSSETXATTR, ARG_IN, 28 }, { IO_FICLONE, ARG_VALUE, 0 },
    { IO_FICLONERANGE, ARG_IN, 32 },
    /* A long (BLKGETSIZE) or a size_t in the number (BLKBSZGET/SET,
     * BLKGETSIZE64): compat_blkdev_ioctl() serves other numbers. */
    { IO_BLKGETSIZE, ARG_OUT | X86_64_ONLY, 8 }, { IO_BLKBSZGET, ARG_OUT | X86_64_ONLY, 4 },
    { IO_BLKBSZSET, ARG_IN | X86_64_ONLY, 4 }, { IO_BLKGETSIZE64, ARG_OUT | X86_64_ONLY, 8 },
    /* longs (BLKRAGET, BLKFRAGET), struct hd_geometry with a long. */
    { IO_BLKRAGET, ARG_OUT | X86_64_ONLY, 8 }, { IO_BLKFRAGET, ARG_OUT | X86_64_ONLY, 8 },
    { IO_HDIO_GETGEO, ARG_OUT | X86_64_ONLY, 16 },
    { IO_BLKROGET, ARG_OUT, 4 }, { IO_BLKSSZGET, ARG_OUT, 4 }, { IO_BLKIOMIN, ARG_OUT, 4 },
    { IO_BLKSECTGET, ARG_OUT, 2 }, { IO_BLKROTATIONAL, ARG_OUT, 2 },
    { IO_BLKALIGNOFF, ARG_OUT, 4 }, { IO_BLKDISCARDZEROES, ARG_OUT, 4 },
    { IO_BLKIOOPT, ARG_OUT, 4 }, { IO_BLKPBSZGET, ARG_OUT, 4 },
    { IO_RNDGETENTCNT, ARG_OUT, 4 },
    /* sockets and interfaces: struct ifreq is 32 bytes for i386, the old
     * timestamps are 32-bit timevals and timespecs */
    { IO_SIOCATMARK, ARG_OUT, 4 }, { IO_FIOSETOWN, ARG_IN, 4 }, { IO_SIOCSPGRP, ARG_IN, 4 },
    { IO_FIOGETOWN, ARG_OUT, 4 }, { IO_SIOCGPGRP, ARG_OUT, 4 },
    { IO_SIOCGSTAMP_OLD, ARG_OUT | X86_64_ONLY, 16 },
    { IO_SIOCGSTAMPNS_OLD, ARG_OUT | X86_64_ONLY, 16 },
    { IO_SIOCGSTAMP_NEW, ARG_OUT, 16 }, { IO_SIOCGSTAMPNS_NEW, ARG_OUT, 16 },
    { IO_SIOCGIFDSTADDR, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFMETRIC, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFPFLAGS, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFTXQLEN, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFNAME, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFFLAGS, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFADDR, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFBRDADDR, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFNETMASK, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFMTU, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFHWADDR, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
    { IO_SIOCGIFINDEX, ARG_INOUT | X86_64_ONLY, IFREQ_SIZE },
};

static const struct ioctl_desc *ioctl_find(uint32_t req)
{
    for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++)
        if (ioctls[i].req == req)
            return &ioctls[i];
    return NULL;
}

/* SIOCGIFCONF: struct ifconf { int ifc_len; char *ifc_buf; } holds a
 * pointer, so it is rebuilt with the host address of the checked buffer. */
static int64_t ioctl_ifconf(struct cpu *c, int fd, uint64_t arg)
{
    struct {
        int32_t len, pad;
        uint64_t buf;
    } g;
    if (copy_from_guest(c, &g, arg, sizeof(g)))
        return host_ret(syscall(SYS_ioctl, fd, IO_SIOCGIFCONF, ioctl_unreadable(arg)));
    struct {
        int len;
        void *buf;
    } h = { g.len, NULL };
    if (g.buf && g.len > 0 && !(h.buf = guest_buf(c, g.buf, (uint64_t)g.len, PROT_WRITE)))
        return -EFAULT;
    if (g.buf && g.len <= 0)
        h.buf = c->mm->base; /* zero bytes to write: any valid address */
    if (syscall(SYS_ioctl, fd, IO_SIOCGIFCONF, &h) != 0)
        return -errno;
    g.len = h.len;
    return copy_to_guest(c, arg, &g, sizeof(g));
}

/* FS_IOC_FIEMAP: struct fiemap (32 bytes, fm_extent_count at 24) followed
 * by fm_extent_count struct fiemap_extent (56 bytes each) that the kernel
 * fills.  Nothing in it is a pointer, so the host reads and writes it in
 * guest memory itself; only its extent must lie in the guest space (a
 * count reaching past the guest space's end is -EFAULT, where Linux only
 * checks against its larger address space).  A count over the kernel's
 * FIEMAP_MAX_EXTENTS is the host's -EINVAL. */
static int64_t ioctl_fiemap(struct cpu *c, int fd, uint64_t arg)
{
    uint32_t count = 0;
    if (copy_from_guest(c, &count, arg + 24, sizeof(count)) || count > UINT32_MAX / 56)
        count = 0;
    void *fm = guest_ptr(c, arg, 32 + (uint64_t)count * 56, PROT_READ | PROT_WRITE);
    return host_ret(syscall(SYS_ioctl, fd, (unsigned long)IO_FS_IOC_FIEMAP, fm));
}

void *ioctl_unreadable(uint64_t arg)
{
    return arg ? HOST_FAULT_ADDR : NULL;
}

int64_t ioctl_table_call(struct cpu *c, int fd, uint32_t req, uint64_t arg, bool converted)
{
    const struct ioctl_desc *d = ioctl_find(req);
    if (d && (d->arg & X86_64_ONLY) && c->bits == 32 && !converted)
        d = NULL;
    if (!d) {
        if (fcntl(fd, F_GETFD) < 0)
            return -EBADF;
        fs_log_once(c, "ioctl request (-ENOTTY)", req);
        return -ENOTTY;
    }
    int kind = d->arg & ~X86_64_ONLY;
    /* A null pointer is the host's too: some requests say -EINVAL to it. */
    if (kind == ARG_VALUE || arg == 0)
        return host_ret(syscall(SYS_ioctl, fd, (unsigned long)req, (unsigned long)arg));
    uint8_t buf[64];
    memset(buf, 0, sizeof(buf));
    if (kind != ARG_OUT && copy_from_guest(c, buf, arg, d->size))
        return host_ret(syscall(SYS_ioctl, fd, (unsigned long)req, ioctl_unreadable(arg)));
    long r = syscall(SYS_ioctl, fd, (unsigned long)req, buf);
    if (r < 0)
        return -errno;
    if (kind != ARG_IN && copy_to_guest(c, arg, buf, d->size))
        return -EFAULT;
    return r;
}

int64_t sys_ioctl(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0];
    /* The request is an unsigned int in the kernel (do_vfs_ioctl()). */
    uint32_t req = (uint32_t)a[1];
    uint64_t arg = a[2];
    if (req == IO_SIOCGIFCONF && c->bits == 64)
        return ioctl_ifconf(c, fd, arg);
    if (req == IO_FS_IOC_FIEMAP)
        return ioctl_fiemap(c, fd, arg);
    return ioctl_table_call(c, fd, req, arg, false);
}
