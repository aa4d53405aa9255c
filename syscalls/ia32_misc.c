/* Smaller i386 calls: nice (i386 has no setpriority-only libc path: the
 * call exists), the old readdir (one struct old_linux_dirent a call),
 * ustat with the 20-byte compat structure (and ustat for x86_64 guests),
 * and open_by_handle_at, which for a 32-bit process does not add
 * O_LARGEFILE. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/host_ia32.h"

/* ------------------------------------------------------------ nice */

/* nice(increment) as kernel/sched/core.c's does it: the increment clamped
 * to [-40, 40], the new value to [-20, 19]; lowering it needs
 * can_nice(): RLIMIT_NICE of at least 20 - nice, or CAP_SYS_NICE, else
 * -EPERM (setpriority would say -EACCES, and would let a task already at
 * the new value pass).  The calling thread's value, as PRIO_PROCESS with
 * who 0 is. */
int64_t sys_nice_ia32(struct cpu *c, const uint64_t a[6])
{
    (void)c;
    int32_t inc = (int32_t)a[0];
    if (inc < -40)
        inc = -40;
    if (inc > 40)
        inc = 40;
    long raw = syscall(SYS_getpriority, PRIO_PROCESS, 0); /* 20 - nice */
    if (raw < 0)
        return -errno;
    int32_t nice = 20 - (int32_t)raw + inc;
    if (nice < -20)
        nice = -20;
    if (nice > 19)
        nice = 19;
    if (inc < 0) {
        struct rlimit rl;
        bool rlimit_allows = getrlimit(RLIMIT_NICE, &rl) == 0 &&
                             (uint64_t)(20 - nice) <= (uint64_t)rl.rlim_cur;
        if (!rlimit_allows && !sys_capable(CAP_SYS_NICE))
            return -EPERM;
    }
    return host_ret(syscall(SYS_setpriority, PRIO_PROCESS, 0, nice));
}

/* ------------------------------------------------------------ readdir */

/* struct old_linux_dirent of a 32-bit process (compat_old_linux_dirent):
 * ino and the entry's own position as 32-bit longs, the name's length,
 * the name and its NUL. */
#define OLD_DIRENT_NAME 10

/* old_readdir(fd, dirent, count): one entry, the result 1, or 0 at the
 * end (count is not looked at).  The positions are those a 32-bit caller
 * gets (ext4 hashes of 31 bits), hence the host's own i386 readdir into
 * the bounce buffer.  compat_fillonedir() stops before the entry when it
 * cannot store it (-EFAULT, the directory stays where it was), so the
 * directory is put back when the guest's buffer takes fewer bytes than
 * the entry. */
static int64_t readdir_host_ia32(struct cpu *c, int fd, uint64_t addr, uint8_t *b)
{
    int64_t before = lseek(fd, 0, SEEK_CUR);
    int64_t r = host_ia32_call(89, (uint32_t)fd, (uint32_t)(uintptr_t)b, 1, 0, 0);
    if (r <= 0)
        return r;
    uint16_t namlen;
    memcpy(&namlen, b + 8, sizeof(namlen));
    if (copy_to_guest(c, addr, b, OLD_DIRENT_NAME + namlen + 1u)) {
        lseek(fd, before, SEEK_SET);
        return -EFAULT;
    }
    return r;
}

/* Without the host's i386 ABI: the first entry of a getdents64, and the
 * directory set after it; the positions are the ones a 64-bit caller
 * gets (the low 32 bits of an ext4 hash position), the inode number must
 * fit 32 bits (-EOVERFLOW, as compat_fillonedir() says). */
static int64_t readdir_converted(struct cpu *c, int fd, uint64_t addr)
{
    uint8_t buf[4096];
    int64_t before = lseek(fd, 0, SEEK_CUR);
    int64_t r = host_ret(syscall(SYS_getdents64, fd, buf, sizeof(buf)));
    if (r <= 0)
        return r;
    uint64_t ino;
    int64_t next;
    memcpy(&ino, buf, 8);
    memcpy(&next, buf + 8, 8);
    const char *name = (const char *)buf + 19;
    uint16_t namlen = (uint16_t)strlen(name);
    if ((uint32_t)ino != ino) {
        lseek(fd, before, SEEK_SET);
        return -EOVERFLOW;
    }
    uint8_t out[OLD_DIRENT_NAME + 256];
    uint32_t w[2] = { (uint32_t)ino, (uint32_t)before };
    memcpy(out, w, 8);
    memcpy(out + 8, &namlen, 2);
    memcpy(out + OLD_DIRENT_NAME, name, namlen + 1u);
    if (copy_to_guest(c, addr, out, OLD_DIRENT_NAME + namlen + 1u)) {
        lseek(fd, before, SEEK_SET);
        return -EFAULT;
    }
    lseek(fd, next, SEEK_SET);
    return 1;
}

int64_t sys_readdir_ia32(struct cpu *c, const uint64_t a[6])
{
    uint8_t *b = host_ia32_available() ? host_ia32_bounce() : NULL;
    if (b)
        return readdir_host_ia32(c, (int)a[0], (uint32_t)a[1], b);
    return readdir_converted(c, (int)a[0], (uint32_t)a[1]);
}

/* ------------------------------------------------------------ ustat */

/* struct ustat of x86_64: int f_tfree, unsigned long f_tinode, two 6-byte
 * names (32 bytes with the padding). */
struct ustat64 {
    int32_t f_tfree;
    uint64_t f_tinode;
    char f_fname[6], f_fpack[6];
};
_Static_assert(sizeof(struct ustat64) == 32, "x86_64 struct ustat");

/* ustat(dev, buf): the free blocks and inodes of a mounted filesystem;
 * the host writes the x86_64 structure itself. */
int64_t sys_ustat(struct cpu *c, const uint64_t a[6])
{
    void *u = guest_ptr(c, a[1], sizeof(struct ustat64), PROT_WRITE);
    return host_ret(syscall(SYS_ustat, (unsigned)a[0], u));
}

/* compat_ustat: f_tfree and f_tinode as 32 bits (COMPAT_SYSCALL ustat
 * stores the kernel's counts into them as C does, dropping high bits),
 * 20 bytes. */
int64_t sys_ustat_ia32(struct cpu *c, const uint64_t a[6])
{
    struct ustat64 u;
    if (syscall(SYS_ustat, (unsigned)a[0], &u) != 0)
        return -errno;
    uint8_t out[20];
    uint32_t w[2] = { (uint32_t)u.f_tfree, (uint32_t)u.f_tinode };
    memcpy(out, w, 8);
    memcpy(out + 8, u.f_fname, 6);
    memcpy(out + 14, u.f_fpack, 6);
    return copy_to_guest(c, a[1], out, sizeof(out));
}

/* ------------------------------------------------------------ handles */

/* open_by_handle_at(mount_fd, struct file_handle *, flags): the i386
 * entry does not add O_LARGEFILE (only x86_64's does), so a guest's call
 * without it goes to the host's i386 entry with the handle (8 bytes and
 * up to MAX_HANDLE_SZ = 128 of f_handle) in the bounce buffer.  A handle
 * elfemu cannot read, or no i386 ABI on the host: x86_64's call, whose
 * errors are the same. */
int64_t sys_open_by_handle_at_ia32(struct cpu *c, const uint64_t a[6])
{
    uint8_t *b = host_ia32_available() ? host_ia32_bounce() : NULL;
    uint32_t bytes;
    /* O_LARGEFILE is 0100000 on both ABIs (x86_64's headers say 0). */
    if (b && !(a[2] & 0100000) && copy_from_guest(c, &bytes, a[1], 4) == 0) {
        uint32_t len = 8 + (bytes < 128 ? bytes : 128);
        if (copy_from_guest(c, b, a[1], len) == 0)
            return host_ia32_call(342, (uint32_t)a[0], (uint32_t)(uintptr_t)b, (uint32_t)a[2], 0, 0);
    }
    return sys_open_by_handle_at(c, a);
}
