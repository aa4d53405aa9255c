/* The process: exit, ids, uname, arch_prctl, thread bookkeeping calls glibc
 * makes at startup, resource limits, getrandom. */
#include <asm/prctl.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

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

/* The guest is a real process: its ids are the host's. */
int64_t sys_getpid(struct cpu *c, const uint64_t a[6]) { return getpid(); }
int64_t sys_getppid(struct cpu *c, const uint64_t a[6]) { return getppid(); }
int64_t sys_gettid(struct cpu *c, const uint64_t a[6]) { return syscall(SYS_gettid); }
int64_t sys_getuid(struct cpu *c, const uint64_t a[6]) { return getuid(); }
int64_t sys_geteuid(struct cpu *c, const uint64_t a[6]) { return geteuid(); }
int64_t sys_getgid(struct cpu *c, const uint64_t a[6]) { return getgid(); }
int64_t sys_getegid(struct cpu *c, const uint64_t a[6]) { return getegid(); }

int64_t sys_uname(struct cpu *c, const uint64_t a[6])
{
    struct utsname u;
    if (uname(&u) != 0)
        return -errno;
    strcpy(u.machine, "x86_64");
    return copy_to_guest(c, a[0], &u, sizeof(u));
}

int64_t sys_arch_prctl(struct cpu *c, const uint64_t a[6])
{
    switch (a[0]) {
    case ARCH_SET_FS:
    case ARCH_SET_GS:
        /* do_arch_prctl_64(): the base must be a user address. */
        if (a[1] >= c->mm->size)
            return -EPERM;
        c->seg_base[a[0] == ARCH_SET_FS ? SEG_FS : SEG_GS] = a[1];
        return 0;
    case ARCH_GET_FS:
    case ARCH_GET_GS: {
        uint64_t v = c->seg_base[a[0] == ARCH_GET_FS ? SEG_FS : SEG_GS];
        return copy_to_guest(c, a[1], &v, sizeof(v));
    }
    case ARCH_GET_CPUID:
        return 1; /* CPUID is not faulting */
    default:
        return -EINVAL;
    }
}

/* The clear_child_tid address and the robust list head matter when a
 * thread exits; with threads not there yet they are only recorded. */
static uint64_t clear_child_tid, robust_list_head;

int64_t sys_set_tid_address(struct cpu *c, const uint64_t a[6])
{
    clear_child_tid = a[0];
    return syscall(SYS_gettid);
}

int64_t sys_set_robust_list(struct cpu *c, const uint64_t a[6])
{
    if (a[1] != 24) /* sizeof(struct robust_list_head) */
        return -EINVAL;
    robust_list_head = a[0];
    return 0;
}

/* rseq is optional: glibc registers it if it can and copes with -ENOSYS. */
int64_t sys_rseq(struct cpu *c, const uint64_t a[6])
{
    return -ENOSYS;
}

int64_t sys_prlimit64(struct cpu *c, const uint64_t a[6])
{
    const void *nl = NULL;
    void *ol = NULL;
    if (a[2] && !(nl = guest_buf(c, a[2], sizeof(struct rlimit), PROT_READ)))
        return -EFAULT;
    if (a[3] && !(ol = guest_buf(c, a[3], sizeof(struct rlimit), PROT_WRITE)))
        return -EFAULT;
    return host_ret(syscall(SYS_prlimit64, (pid_t)a[0], (int)a[1], nl, ol));
}

int64_t sys_getrandom(struct cpu *c, const uint64_t a[6])
{
    void *buf = guest_buf(c, a[0], a[1], PROT_WRITE);
    return buf ? host_ret(syscall(SYS_getrandom, buf, a[1], (unsigned)a[2])) : -EFAULT;
}

int64_t sys_sched_yield(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sched_yield));
}

int64_t sys_sched_getaffinity(struct cpu *c, const uint64_t a[6])
{
    void *mask = guest_buf(c, a[2], a[1], PROT_WRITE);
    return mask ? host_ret(syscall(SYS_sched_getaffinity, (pid_t)a[0], a[1], mask)) : -EFAULT;
}

int64_t sys_sysinfo(struct cpu *c, const uint64_t a[6])
{
    void *info = guest_buf(c, a[0], sizeof(struct sysinfo), PROT_WRITE);
    return info ? host_ret(syscall(SYS_sysinfo, info)) : -EFAULT;
}
