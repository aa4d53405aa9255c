/* Clocks and sleeps for x86_64 guests (struct timespec/timeval have the
 * host's layout). */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

int64_t sys_clock_gettime(struct cpu *c, const uint64_t a[6])
{
    void *ts = guest_buf(c, a[1], sizeof(struct timespec), PROT_WRITE);
    return ts ? host_ret(syscall(SYS_clock_gettime, (clockid_t)a[0], ts)) : -EFAULT;
}

int64_t sys_clock_getres(struct cpu *c, const uint64_t a[6])
{
    void *ts = NULL;
    if (a[1] && !(ts = guest_buf(c, a[1], sizeof(struct timespec), PROT_WRITE)))
        return -EFAULT;
    return host_ret(syscall(SYS_clock_getres, (clockid_t)a[0], ts));
}

int64_t sys_gettimeofday(struct cpu *c, const uint64_t a[6])
{
    void *tv = NULL, *tz = NULL;
    if (a[0] && !(tv = guest_buf(c, a[0], sizeof(struct timeval), PROT_WRITE)))
        return -EFAULT;
    if (a[1] && !(tz = guest_buf(c, a[1], sizeof(struct timezone), PROT_WRITE)))
        return -EFAULT;
    return host_ret(syscall(SYS_gettimeofday, tv, tz));
}

int64_t sys_time(struct cpu *c, const uint64_t a[6])
{
    time_t t = time(NULL);
    if (a[0] && copy_to_guest(c, a[0], &t, sizeof(t)) != 0)
        return -EFAULT;
    return t;
}

int64_t sys_nanosleep(struct cpu *c, const uint64_t a[6])
{
    const void *req = guest_buf(c, a[0], sizeof(struct timespec), PROT_READ);
    void *rem = NULL;
    if (!req || (a[1] && !(rem = guest_buf(c, a[1], sizeof(struct timespec), PROT_WRITE))))
        return -EFAULT;
    return host_ret(syscall(SYS_nanosleep, req, rem));
}

int64_t sys_clock_nanosleep(struct cpu *c, const uint64_t a[6])
{
    const void *req = guest_buf(c, a[2], sizeof(struct timespec), PROT_READ);
    void *rem = NULL;
    if (!req || (a[3] && !(rem = guest_buf(c, a[3], sizeof(struct timespec), PROT_WRITE))))
        return -EFAULT;
    /* clock_nanosleep returns the error number itself, not -1/errno. */
    long r = syscall(SYS_clock_nanosleep, (clockid_t)a[0], (int)a[1], req, rem);
    return r < 0 ? -errno : r;
}
