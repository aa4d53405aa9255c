/* The foundation's syscalls: write, exit, exit_group.  The full set, split
 * by area (fs, mem, proc, signal, time, net, ioctl), is the syscall issue. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

int64_t sys_write(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0];
    uint64_t buf = a[1], len = a[2];
    if (c->bits == 32)
        len = (uint32_t)len;
    /* Linux caps a single transfer at MAX_RW_COUNT (INT_MAX & PAGE_MASK). */
    if (len > 0x7ffff000)
        len = 0x7ffff000;
    if (!mm_check(c->mm, buf, len, PROT_READ))
        return -EFAULT;
    ssize_t n = write(fd, c->mm->base + buf, len);
    return n < 0 ? -errno : n;
}

/* With one guest thread, exit and exit_group both end the process. */
int64_t sys_exit(struct cpu *c, const uint64_t a[6])
{
    c->stop = CPU_EXITED;
    c->stop_code = (int)(a[0] & 0xff);
    return 0;
}

int64_t sys_exit_group(struct cpu *c, const uint64_t a[6])
{
    return sys_exit(c, a);
}
