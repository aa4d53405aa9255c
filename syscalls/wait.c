/* Relations between processes: waiting for children, sending signals,
 * process groups and sessions.  Guest pids and tids are the host's, so
 * these are forwarded; what the host writes goes to host buffers first and
 * is copied out afterwards the way the kernel does it (a bad status or
 * rusage pointer is reported after the child was reaped, as on Linux). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* wait4(pid, status, options, rusage): kernel_wait4() and sys_wait4(). */
/* The rusage of an i386 guest: two 32-bit timevals, fourteen 32-bit longs. */
int ia32_put_rusage(struct cpu *c, uint64_t addr, const struct rusage *ru)
{
    const long *l = &ru->ru_maxrss;
    int32_t out[18] = { (int32_t)ru->ru_utime.tv_sec, (int32_t)ru->ru_utime.tv_usec,
                        (int32_t)ru->ru_stime.tv_sec, (int32_t)ru->ru_stime.tv_usec };
    for (int i = 0; i < 14; i++)
        out[4 + i] = (int32_t)l[i];
    return copy_to_guest(c, addr, out, sizeof(out));
}

static int64_t wait4_common(struct cpu *c, const uint64_t a[6], bool ia32)
{
    int status = 0;
    struct rusage ru;
    int64_t r = host_ret(syscall(SYS_wait4, (pid_t)a[0], a[1] ? &status : NULL, (int)a[2],
                                 a[3] ? &ru : NULL));
    if (r > 0 && a[1] && copy_to_guest(c, a[1], &status, sizeof(status)) != 0)
        return -EFAULT;
    if (r > 0 && a[3] &&
        (ia32 ? ia32_put_rusage(c, a[3], &ru) : copy_to_guest(c, a[3], &ru, sizeof(ru))) != 0)
        return -EFAULT;
    return r;
}

int64_t sys_wait4(struct cpu *c, const uint64_t a[6])
{
    return wait4_common(c, a, false);
}

/* wait4 of i386 guests: the same with their struct rusage. */
int64_t sys_wait4_ia32(struct cpu *c, const uint64_t a[6])
{
    return wait4_common(c, a, true);
}

/* waitid(idtype, id, infop, options, rusage): like the kernel, the fields
 * below of *infop are written whatever the outcome (zeros when WNOHANG
 * found nothing, and also when the call failed: a bad infop then turns any
 * error into -EFAULT); the rest of the guest's siginfo stays as it was. */
int64_t sys_waitid(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si;
    struct rusage ru;
    memset(&si, 0, sizeof(si));
    int64_t r = host_ret(syscall(SYS_waitid, (int)a[0], (pid_t)a[1], &si, (int)a[3],
                                 a[4] ? &ru : NULL));
    if (r < 0)
        memset(&si, 0, sizeof(si));
    bool found = r == 0 && si.si_signo != 0;
    if (found && a[4] && copy_to_guest(c, a[4], &ru, sizeof(ru)) != 0)
        return -EFAULT;
    if (!a[2])
        return r;
    /* si_signo, si_errno, si_code; then si_pid, si_uid, si_status. */
    if (copy_to_guest(c, a[2], &si, 12) != 0 ||
        copy_to_guest(c, a[2] + 16, (const uint8_t *)&si + 16, 12) != 0)
        return -EFAULT;
    return r;
}

/* waitid of i386 guests (compat_sys_waitid): the i386 rusage, and the six
 * siginfo fields at their compat offsets (si_pid right after si_code). */
int64_t sys_waitid_ia32(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si;
    struct rusage ru;
    memset(&si, 0, sizeof(si));
    int64_t r = host_ret(syscall(SYS_waitid, (int32_t)a[0], (pid_t)a[1], &si, (int32_t)a[3],
                                 a[4] ? &ru : NULL));
    if (r < 0)
        memset(&si, 0, sizeof(si));
    bool found = r == 0 && si.si_signo != 0;
    if (found && a[4] && ia32_put_rusage(c, a[4], &ru) != 0)
        return -EFAULT;
    if (!a[2])
        return r;
    uint8_t out[24];
    memcpy(out, &si, 12);
    memcpy(out + 12, (const uint8_t *)&si + 16, 12);
    if (copy_to_guest(c, a[2], out, sizeof(out)) != 0)
        return -EFAULT;
    return r;
}

int64_t sys_kill(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_kill, (pid_t)a[0], (int)a[1]));
}

int64_t sys_tkill(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_tkill, (pid_t)a[0], (int)a[1]));
}

int64_t sys_tgkill(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_tgkill, (pid_t)a[0], (pid_t)a[1], (int)a[2]));
}

int64_t sys_setpgid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setpgid, (pid_t)a[0], (pid_t)a[1]));
}

int64_t sys_getpgid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_getpgid, (pid_t)a[0]));
}

int64_t sys_getpgrp(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_getpgrp));
}

int64_t sys_setsid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setsid));
}

int64_t sys_getsid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_getsid, (pid_t)a[0]));
}
