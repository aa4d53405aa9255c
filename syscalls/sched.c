/* Scheduling: sched_yield, CPU affinity, policies and parameters, nice
 * values.  Every guest thread is a host thread with the same id, so these
 * are the host calls on the same ids; what needs care is the guest's
 * buffers, which the kernel reads and writes only partly (the affinity
 * masks) or after the call's effect (the parameters). */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* Room for a mask of 65536 CPUs, more than any kernel's NR_CPUS. */
#define MASK_ROOM 8192

int64_t sys_sched_yield(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sched_yield));
}

/* The kernel's cpumask_size(): what sched_getaffinity answers for a buffer
 * larger than any mask. */
static long mask_size(void)
{
    unsigned char m[MASK_ROOM];
    long r = syscall(SYS_sched_getaffinity, 0, sizeof(m), m);
    return r > 0 ? r : (long)sizeof(m);
}

int64_t sys_sched_getaffinity(struct cpu *c, const uint64_t a[6])
{
    unsigned len = (unsigned)a[1];
    /* The kernel wants whole longs, at least enough bits for every CPU
     * (checked by the host call on the same length up to MASK_ROOM). */
    if (len & (sizeof(long) - 1))
        return -EINVAL;
    unsigned char m[MASK_ROOM];
    long r = syscall(SYS_sched_getaffinity, (pid_t)a[0], len < sizeof(m) ? len : sizeof(m), m);
    if (r < 0)
        return -errno;
    /* It writes only the mask's own size (the result), not len bytes. */
    return copy_to_guest(c, a[2], m, (uint64_t)r) ? -EFAULT : r;
}

int64_t sys_sched_setaffinity(struct cpu *c, const uint64_t a[6])
{
    unsigned len = (unsigned)a[1];
    long size = mask_size();
    unsigned char m[MASK_ROOM];
    /* get_user_cpu_mask(): a shorter mask is zero-extended, a longer one
     * cut to the kernel's size. */
    memset(m, 0, sizeof(m));
    if (copy_from_guest(c, m, a[2], len < (unsigned long)size ? len : (uint64_t)size) != 0)
        return -EFAULT;
    return host_ret(syscall(SYS_sched_setaffinity, (pid_t)a[0], size, m));
}

int64_t sys_sched_getparam(struct cpu *c, const uint64_t a[6])
{
    struct sched_param p;
    if (!a[1] || (int)a[0] < 0)
        return -EINVAL;
    if (syscall(SYS_sched_getparam, (pid_t)a[0], &p) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &p, sizeof(p));
}

/* do_sched_setscheduler(): the parameter is read before the process is
 * looked up. */
static int64_t set_scheduler(struct cpu *c, long nr, pid_t pid, int policy, uint64_t param)
{
    struct sched_param p;
    if (!param || pid < 0)
        return -EINVAL;
    if (copy_from_guest(c, &p, param, sizeof(p)) != 0)
        return -EFAULT;
    if (nr == SYS_sched_setparam)
        return host_ret(syscall(nr, pid, &p));
    return host_ret(syscall(nr, pid, policy, &p));
}

int64_t sys_sched_setparam(struct cpu *c, const uint64_t a[6])
{
    return set_scheduler(c, SYS_sched_setparam, (pid_t)a[0], -1, a[1]);
}

int64_t sys_sched_setscheduler(struct cpu *c, const uint64_t a[6])
{
    if ((int)a[1] < 0)
        return -EINVAL;
    return set_scheduler(c, SYS_sched_setscheduler, (pid_t)a[0], (int)a[1], a[2]);
}

int64_t sys_sched_getscheduler(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sched_getscheduler, (pid_t)a[0]));
}

int64_t sys_sched_get_priority_max(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sched_get_priority_max, (int)a[0]));
}

int64_t sys_sched_get_priority_min(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sched_get_priority_min, (int)a[0]));
}

int64_t sys_sched_rr_get_interval(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    if ((int)a[0] < 0)
        return -EINVAL;
    if (syscall(SYS_sched_rr_get_interval, (pid_t)a[0], &ts) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &ts, sizeof(ts));
}

/* The raw getpriority result is 20 - nice (1..40, never an error value);
 * the guest's libc converts it. */
int64_t sys_getpriority(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_getpriority, (int)a[0], (id_t)a[1]));
}

int64_t sys_setpriority(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setpriority, (int)a[0], (id_t)a[1], (int)a[2]));
}

/* getcpu: the host CPU the calling thread runs on (the guest's thread is
 * that host thread); the third argument is unused since Linux 2.6.24.
 * Each answer is stored only when asked for, the CPU first. */
int64_t sys_getcpu(struct cpu *c, const uint64_t a[6])
{
    unsigned cpu, node;
    if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0)
        return -errno;
    if (a[0] && copy_to_guest(c, a[0], &cpu, sizeof(cpu)) != 0)
        return -EFAULT;
    if (a[1] && copy_to_guest(c, a[1], &node, sizeof(node)) != 0)
        return -EFAULT;
    return 0;
}

/* sched_getattr/sched_setattr: struct sched_attr grows with the kernel;
 * its first field is its size, which the caller sets and the kernel
 * answers with (the size it copied, or its own size with E2BIG). */
#define SCHED_ATTR_SIZE_VER0 48
#define SCHED_ATTR_ROOM 4096 /* the kernel's limit: one page */

int64_t sys_sched_getattr(struct cpu *c, const uint64_t a[6])
{
    unsigned size = (unsigned)a[2];
    if (!a[1] || (int)a[0] < 0 || size > SCHED_ATTR_ROOM || size < SCHED_ATTR_SIZE_VER0 ||
        (unsigned)a[3])
        return -EINVAL;
    unsigned char attr[SCHED_ATTR_ROOM];
    memset(attr, 0, size);
    if (syscall(SYS_sched_getattr, (pid_t)a[0], attr, size, 0) != 0)
        return -errno;
    uint32_t copied; /* sched_attr_copy_to_user() stored what it copied */
    memcpy(&copied, attr, sizeof(copied));
    return copy_to_guest(c, a[1], attr, copied < size ? copied : size);
}

int64_t sys_sched_setattr(struct cpu *c, const uint64_t a[6])
{
    if (!a[1] || (int)a[0] < 0 || (unsigned)a[2])
        return -EINVAL;
    uint32_t size;
    if (copy_from_guest(c, &size, a[1], sizeof(size)) != 0)
        return -EFAULT;
    unsigned char attr[SCHED_ATTR_ROOM];
    memset(attr, 0, sizeof(attr));
    uint64_t take = size == 0 ? SCHED_ATTR_SIZE_VER0 : size;
    if (take > SCHED_ATTR_ROOM || take < SCHED_ATTR_SIZE_VER0)
        take = sizeof(size); /* refused for its size alone: E2BIG below */
    if (copy_from_guest(c, attr, a[1], take) != 0)
        return -EFAULT;
    if (syscall(SYS_sched_setattr, (pid_t)a[0], attr, 0) == 0)
        return 0;
    int e = errno;
    /* E2BIG comes with the kernel's own size written back. */
    if (e == E2BIG && copy_to_guest(c, a[1], attr, sizeof(size)) != 0)
        return -EFAULT;
    return -e;
}

/* I/O priorities: of host threads, processes or users, with the same ids. */
int64_t sys_ioprio_get(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_ioprio_get, (int)a[0], (int)a[1]));
}

int64_t sys_ioprio_set(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_ioprio_set, (int)a[0], (int)a[1], (int)a[2]));
}
