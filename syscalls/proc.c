/* The process: ids, uname, arch_prctl, prctl, personality, thread
 * bookkeeping calls glibc makes at startup, getrandom, membarrier, sysinfo.
 * (Credentials: creds.c; limits and usage: resource.c; scheduling:
 * sched.c; clocks and timers: time.c.) */
#include <asm/prctl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/prctl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* The guest is a real process: its ids are the host's (credentials:
 * creds.c). */
int64_t sys_getpid(struct cpu *c, const uint64_t a[6]) { return getpid(); }
int64_t sys_getppid(struct cpu *c, const uint64_t a[6]) { return getppid(); }
int64_t sys_gettid(struct cpu *c, const uint64_t a[6]) { return syscall(SYS_gettid); }

int64_t sys_uname(struct cpu *c, const uint64_t a[6])
{
    struct utsname u;
    if (uname(&u) != 0)
        return -errno;
    /* The host may be another architecture; the guest's kernel is x86_64,
     * or i686 under the PER_LINUX32 personality (override_architecture()). */
    int persona = (int)syscall(SYS_personality, 0xffffffffu);
    strcpy(u.machine, (persona & PER_MASK) == PER_LINUX32 ? "i686" : "x86_64");
    return copy_to_guest(c, a[0], &u, sizeof(u));
}

/* ARCH_SET_CPUID (set_cpuid_mode()): the kernel answers ENODEV on a CPU
 * without X86_FEATURE_CPUID_FAULT, whatever the argument.  The emulated CPU
 * could always fault, but a guest must see what it would see natively on
 * this host, so the host is asked once (enabling CPUID, which it is for
 * elfemu itself, changes nothing there).  The setting is per thread, is
 * inherited by clone and fork (cpu_clone copies it) and ends with execve
 * (a new elfemu process). */
static int64_t set_cpuid_faulting(struct cpu *c, uint64_t enable)
{
    static int host_answer = 1; /* 1: not asked yet */
    if (host_answer == 1)
        host_answer = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1) == 0 ? 0 : -errno;
    if (host_answer != 0)
        return host_answer;
    c->cpuid_faults = enable == 0;
    return 0;
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
        return !c->cpuid_faults;
    case ARCH_SET_CPUID:
        return set_cpuid_faulting(c, a[1]);
    default:
        return -EINVAL;
    }
}

/* rseq is optional: glibc registers it if it can and copes with -ENOSYS. */
int64_t sys_rseq(struct cpu *c, const uint64_t a[6])
{
    return -ENOSYS;
}

int64_t sys_getrandom(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_getrandom, guest_ptr(c, a[0], a[1], PROT_WRITE), a[1],
                            (unsigned)a[2]));
}

int64_t sys_sysinfo(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_sysinfo, guest_ptr(c, a[0], sizeof(struct sysinfo), PROT_WRITE)));
}

int64_t sys_membarrier(struct cpu *c, const uint64_t a[6])
{
    /* Guest threads are host threads: the host's barrier covers them. */
    return host_ret(syscall(SYS_membarrier, (int)a[0], (unsigned)a[1], (int)a[2]));
}

/* The host process's personality is the guest's: it is inherited by fork
 * and exec like the native one, and what it changes for the host (mmap
 * layout and randomisation, READ_IMPLIES_EXEC) is harmless to elfemu;
 * uname() applies PER_LINUX32 itself. */
int64_t sys_personality(struct cpu *c, const uint64_t a[6])
{
    return (uint32_t)syscall(SYS_personality, (unsigned)a[0]);
}

void sys_set_comm(const char *path)
{
    /* begin_new_exec(): the last component of the name the program was
     * executed by; for a descriptor (/dev/fd/N...), the file's own name. */
    char real[4096];
    const char *name = path;
    if (!strncmp(path, "/dev/fd/", 8) && realpath(path, real))
        name = real;
    const char *slash = strrchr(name, '/');
    syscall(SYS_prctl, PR_SET_NAME, slash ? slash + 1 : name, 0, 0, 0);
}

/* ------------------------------------------------------------------ prctl */

/* The options that act on the calling host thread or process exactly as
 * on the native one, with no guest pointer among their arguments. */
static bool prctl_passes(int option)
{
    switch (option) {
    case PR_SET_PDEATHSIG:
    case PR_GET_DUMPABLE:
    case PR_SET_DUMPABLE:
    case PR_GET_KEEPCAPS:
    case PR_SET_KEEPCAPS:
    case PR_GET_TIMING:
    case PR_SET_TIMING:
    case PR_GET_SECCOMP:
    case PR_CAPBSET_READ:
    case PR_CAPBSET_DROP:
    case PR_GET_SECUREBITS:
    case PR_SET_SECUREBITS:
    case PR_SET_TIMERSLACK:
    case PR_GET_TIMERSLACK:
    case PR_TASK_PERF_EVENTS_DISABLE:
    case PR_TASK_PERF_EVENTS_ENABLE:
    case PR_MCE_KILL:
    case PR_MCE_KILL_GET:
    case PR_SET_PTRACER:
    case PR_SET_CHILD_SUBREAPER:
    case PR_SET_NO_NEW_PRIVS:
    case PR_GET_NO_NEW_PRIVS:
    case PR_SET_THP_DISABLE:
    case PR_GET_THP_DISABLE:
    case PR_CAP_AMBIENT:
    case PR_GET_SPECULATION_CTRL:
    case PR_SET_SPECULATION_CTRL:
    case PR_SET_IO_FLUSHER:
    case PR_GET_IO_FLUSHER:
        return true;
    default:
        return false;
    }
}

/* An int the kernel stores with put_user(). */
static int64_t put_int(struct cpu *c, uint64_t addr, int v)
{
    return copy_to_guest(c, addr, &v, sizeof(v));
}

/* prctl.  Not served, with -EINVAL (the kernel's answer for an option it
 * was built without or does not know): PR_SET_SECCOMP (a filter would
 * apply to elfemu's own host calls), PR_SET_MM, PR_GET_TID_ADDRESS and
 * PR_GET_AUXV (they would need the guest's values, not the host's),
 * PR_SET_SYSCALL_USER_DISPATCH, PR_SET_MDWE/PR_GET_MDWE, PR_SET_VMA,
 * PR_SCHED_CORE, and PR_SET_TSC to PR_TSC_SIGSEGV (the emulated RDTSC
 * cannot fault).  The options of other architectures (PR_GET_UNALIGN,
 * PR_SET_FPEMU, PR_SVE_*...) are EINVAL on x86_64 natively too. */
int64_t sys_prctl(struct cpu *c, const uint64_t a[6])
{
    int option = (int)a[0];
    if (prctl_passes(option))
        return host_ret(syscall(SYS_prctl, option, a[1], a[2], a[3], a[4]));
    switch (option) {
    case PR_GET_PDEATHSIG:
    case PR_GET_CHILD_SUBREAPER: {
        int v;
        if (syscall(SYS_prctl, option, &v, 0, 0, 0) != 0)
            return -errno;
        return put_int(c, a[1], v);
    }
    case PR_SET_NAME: {
        /* strncpy_from_user() of at most 16 bytes: no NUL needed within
         * them, a fault before the NUL or the 16th byte is EFAULT. */
        char comm[16];
        for (size_t i = 0; i < sizeof(comm); i++) {
            if (copy_from_guest(c, &comm[i], a[1] + i, 1) != 0)
                return -EFAULT;
            if (!comm[i])
                break;
        }
        comm[15] = 0;
        return host_ret(syscall(SYS_prctl, PR_SET_NAME, comm, 0, 0, 0));
    }
    case PR_GET_NAME: {
        char comm[16] = { 0 };
        if (syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0) != 0)
            return -errno;
        return copy_to_guest(c, a[1], comm, sizeof(comm));
    }
    case PR_GET_TSC:
        return put_int(c, a[1], PR_TSC_ENABLE); /* RDTSC always works */
    case PR_SET_TSC:
        return a[1] == PR_TSC_ENABLE ? 0 : -EINVAL;
    default:
        return -EINVAL;
    }
}
