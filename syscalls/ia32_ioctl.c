/* ioctl for i386 guests: what Linux's compat ioctl code does for a 32-bit
 * process (compat_sys_ioctl() in fs/ioctl.c, compat_blkdev_ioctl() in
 * block/ioctl.c, compat_sock_ioctl() and the compat ifreq/ifconf handling
 * of net/), on top of ioctl.c's table of x86_64 requests.
 *
 * A request whose number and argument are the same for a 32-bit process
 * (an int, a fixed-size structure without longs or pointers: termios,
 * winsize, FIEMAP's struct fiemap...) goes to the table unchanged.  What
 * differs is converted here:
 *   - the requests whose number holds sizeof(long) or sizeof(size_t), 4 on
 *     i386, but whose argument is an int or a u64 either way, are renamed
 *     to the x86_64 request (FS_IOC32_GETFLAGS...);
 *   - BLKGETSIZE stores an unsigned long: 4 bytes, -EFBIG past 2^32 - 1
 *     sectors; BLKRAGET and BLKFRAGET a long, HDIO_GETGEO a struct
 *     hd_geometry whose start is one (8 bytes instead of 16);
 *   - SIOCGSTAMP and SIOCGSTAMPNS (the old ones) store a 32-bit timeval
 *     or timespec (the _NEW ones have 64-bit fields for both ABIs);
 *   - struct ifreq is 32 bytes (its union holds a struct ifmap of two
 *     longs and a pointer), struct ifconf holds a 32-bit pointer and its
 *     records are 32-byte ifreqs.
 * The x86_64 numbers of the renamed requests are not served for an i386
 * guest (ioctl.c marks them X86_64_ONLY): Linux's compat code refuses them
 * (-ENOTTY) but for FS_IOC_GETFLAGS/SETFLAGS, which do_vfs_ioctl() serves
 * whatever the ABI. */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/ioctl.h"

enum {
    /* i386 numbers (_IOR('f', 1, long) and so on with a 4-byte long) */
    I32_FS_IOC_GETFLAGS = 0x80046601, I32_FS_IOC_SETFLAGS = 0x40046602,
    I32_FS_IOC_GETVERSION = 0x80047601, I32_FS_IOC_SETVERSION = 0x40047602,
    I32_BLKBSZGET = 0x80041270, I32_BLKBSZSET = 0x40041271, I32_BLKGETSIZE64 = 0x80041272,
    /* x86_64 numbers */
    X64_FS_IOC_GETFLAGS = 0x80086601, X64_FS_IOC_SETFLAGS = 0x40086602,
    X64_FS_IOC_GETVERSION = 0x80087601, X64_FS_IOC_SETVERSION = 0x40087602,
    X64_BLKBSZSET = 0x40081271, X64_BLKGETSIZE64 = 0x80081272,
    /* the same on both */
    BLKGETSIZE = 0x1260, BLKRAGET = 0x1263, BLKFRAGET = 0x1265, BLKSSZGET = 0x1268,
    HDIO_GETGEO = 0x0301, SIOCGSTAMP_OLD = 0x8906, SIOCGSTAMPNS_OLD = 0x8907,
    SIOCGIFDSTADDR = 0x8917, SIOCGIFMETRIC = 0x891D, SIOCGIFPFLAGS = 0x8935,
    SIOCGIFTXQLEN = 0x8942, SIOCGIFNAME = 0x8910, SIOCGIFCONF = 0x8912, SIOCGIFFLAGS = 0x8913, SIOCGIFADDR = 0x8915,
    SIOCGIFBRDADDR = 0x8919, SIOCGIFNETMASK = 0x891B, SIOCGIFMTU = 0x8921,
    SIOCGIFHWADDR = 0x8927, SIOCGIFINDEX = 0x8933,
};

/* The i386 requests served as an x86_64 one with the same argument. */
static const struct {
    uint32_t i386, x86_64;
} renamed[] = {
    { I32_FS_IOC_GETFLAGS, X64_FS_IOC_GETFLAGS },
    { I32_FS_IOC_SETFLAGS, X64_FS_IOC_SETFLAGS },
    /* The filesystems' compat_ioctl turn these into their 64-bit ones. */
    { I32_FS_IOC_GETVERSION, X64_FS_IOC_GETVERSION },
    { I32_FS_IOC_SETVERSION, X64_FS_IOC_SETVERSION },
    /* compat_blkdev_ioctl() answers BLKBSZGET_32 with the logical block
     * size, which is BLKSSZGET's answer (the native BLKBSZGET gives the
     * block size in use, 4096 where a filesystem set it). */
    { I32_BLKBSZGET, BLKSSZGET },
    { I32_BLKBSZSET, X64_BLKBSZSET },
    { I32_BLKGETSIZE64, X64_BLKGETSIZE64 },
};

#define IFREQ32_SIZE 32 /* IFNAMSIZ + a 16-byte union */
#define IFREQ64_SIZE 40 /* IFNAMSIZ + a 24-byte union */

static bool is_ifreq_request(uint32_t req)
{
    switch (req) {
    case SIOCGIFNAME: case SIOCGIFFLAGS: case SIOCGIFADDR: case SIOCGIFBRDADDR:
    case SIOCGIFNETMASK: case SIOCGIFMTU: case SIOCGIFHWADDR: case SIOCGIFINDEX:
    case SIOCGIFDSTADDR: case SIOCGIFMETRIC: case SIOCGIFPFLAGS: case SIOCGIFTXQLEN:
        return true;
    default:
        return false;
    }
}

/* The ifreq requests elfemu serves read and write the name and the first
 * 16 bytes of the union, which both layouts share: the 32 bytes of the
 * i386 one are copied in and out of a zeroed x86_64 one.  Linux copies
 * the whole compat_ifreq both ways (get_user_ifreq()/put_user_ifreq()),
 * so 32 bytes that cannot be read or written are -EFAULT. */
static int64_t ioctl_ifreq32(struct cpu *c, int fd, uint32_t req, uint64_t arg)
{
    uint8_t ifr[IFREQ64_SIZE] = { 0 };
    if (copy_from_guest(c, ifr, arg, IFREQ32_SIZE))
        return host_ret(syscall(SYS_ioctl, fd, (unsigned long)req, ioctl_unreadable(arg)));
    if (syscall(SYS_ioctl, fd, (unsigned long)req, ifr) < 0)
        return -errno;
    return copy_to_guest(c, arg, ifr, IFREQ32_SIZE);
}

/* SIOCGIFCONF with struct compat_ifconf { int ifc_len; u32 ifc_buf; }:
 * dev_ifconf() writes one 32-byte record per address while ifc_len has
 * room for a whole one (with a null ifc_buf it only counts them), and
 * stores the bytes written in ifc_len.  The host fills as many 40-byte
 * records, whose first 32 bytes are the i386 record (name and address;
 * inet_gifconf() zeroes the rest).  The records go to the guest one by
 * one as the kernel writes them: -EFAULT at the first that cannot be. */
static int64_t ioctl_ifconf32(struct cpu *c, int fd, uint64_t arg)
{
    struct {
        int32_t len;
        uint32_t buf;
    } g;
    if (copy_from_guest(c, &g, arg, sizeof(g)))
        return host_ret(syscall(SYS_ioctl, fd, (unsigned long)SIOCGIFCONF, ioctl_unreadable(arg)));
    /* Room for 409 records: more addresses than that are not reported. */
    uint8_t recs[16384];
    int32_t n = g.len > 0 ? g.len / IFREQ32_SIZE : 0;
    if (n > (int32_t)(sizeof(recs) / IFREQ64_SIZE))
        n = (int32_t)(sizeof(recs) / IFREQ64_SIZE);
    struct {
        int len;
        void *buf;
    } h = { n * IFREQ64_SIZE, g.buf ? recs : NULL };
    if (syscall(SYS_ioctl, fd, (unsigned long)SIOCGIFCONF, &h) != 0)
        return -errno;
    int32_t got = h.len / IFREQ64_SIZE;
    if (g.buf)
        for (int32_t i = 0; i < got; i++)
            if (copy_to_guest(c, (uint32_t)(g.buf + (uint32_t)i * IFREQ32_SIZE),
                              recs + i * IFREQ64_SIZE, IFREQ32_SIZE))
                return -EFAULT;
    g.len = got * IFREQ32_SIZE;
    return copy_to_guest(c, arg, &g.len, sizeof(g.len));
}

/* The host's answer to a request that stores a structure of up to 16
 * bytes, into *out; a null guest pointer stays null (BLKRAGET and
 * HDIO_GETGEO say -EINVAL to it).  0 or -errno. */
static int64_t host_out(int fd, uint32_t req, uint64_t arg, void *out)
{
    return syscall(SYS_ioctl, fd, (unsigned long)req, arg ? out : NULL) < 0 ? -errno : 0;
}

/* BLKGETSIZE (the size in 512-byte sectors, -EFBIG past 32 bits),
 * BLKRAGET and BLKFRAGET (read-ahead in sectors): a 32-bit long. */
static int64_t ioctl_long32(struct cpu *c, int fd, uint32_t req, uint64_t arg)
{
    uint64_t v = 0;
    int64_t r = host_out(fd, req, arg, &v);
    if (r < 0)
        return r;
    if (req == BLKGETSIZE && v > UINT32_MAX)
        return -EFBIG;
    uint32_t v32 = (uint32_t)v;
    return copy_to_guest(c, arg, &v32, sizeof(v32));
}

/* HDIO_GETGEO: heads, sectors, cylinders (4 bytes) and the start sector
 * as a 32-bit long (compat_hdio_getgeo()). */
static int64_t ioctl_getgeo32(struct cpu *c, int fd, uint64_t arg)
{
    uint8_t geo[16];
    int64_t r = host_out(fd, HDIO_GETGEO, arg, geo);
    if (r < 0)
        return r;
    uint64_t start;
    memcpy(&start, geo + 8, sizeof(start));
    uint32_t start32 = (uint32_t)start;
    uint8_t out[8];
    memcpy(out, geo, 4);
    memcpy(out + 4, &start32, 4);
    return copy_to_guest(c, arg, out, sizeof(out));
}

/* SIOCGSTAMP and SIOCGSTAMPNS, the old ones: put_old_timespec32() of the
 * last packet's time (microseconds in the second field for SIOCGSTAMP). */
static int64_t ioctl_stamp32(struct cpu *c, int fd, uint32_t req, uint64_t arg)
{
    int64_t t[2];
    int64_t r = host_out(fd, req, arg, t);
    if (r < 0)
        return r;
    int32_t t32[2] = { (int32_t)t[0], (int32_t)t[1] };
    return copy_to_guest(c, arg, t32, sizeof(t32));
}

int64_t sys_ioctl_ia32(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0];
    uint32_t req = (uint32_t)a[1];
    uint64_t arg = (uint32_t)a[2];
    for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
        if (renamed[i].i386 == req)
            return ioctl_table_call(c, fd, renamed[i].x86_64, arg, true);
    if (req == BLKGETSIZE || req == BLKRAGET || req == BLKFRAGET)
        return ioctl_long32(c, fd, req, arg);
    if (req == HDIO_GETGEO)
        return ioctl_getgeo32(c, fd, arg);
    if (req == SIOCGSTAMP_OLD || req == SIOCGSTAMPNS_OLD)
        return ioctl_stamp32(c, fd, req, arg);
    if (req == SIOCGIFCONF)
        return ioctl_ifconf32(c, fd, arg);
    if (is_ifreq_request(req))
        return ioctl_ifreq32(c, fd, req, arg);
    /* The rest as x86_64's: the same requests, or -ENOTTY. */
    return sys_ioctl(c, a);
}
