/* Resource limits and usage: getrlimit, setrlimit, prlimit64, getrusage,
 * times.
 *
 * Most limits are the host process's own and are passed through: the
 * kernel enforces them on the host process exactly as it would on the
 * native one (RLIMIT_NOFILE on open, RLIMIT_NPROC on fork, RLIMIT_CPU and
 * RLIMIT_FSIZE with their signals, RLIMIT_STACK for the next exec).  Two are
 * not: RLIMIT_AS and RLIMIT_DATA measure the host's address space, which
 * holds elfemu's reservation of the whole guest space (terabytes) and its
 * own heap, so applying the guest's value to the host would break elfemu
 * itself.  They are emulated here: kept per process, with the kernel's
 * rules for changing them, reported to the guest, passed on over execve
 * (--exec-rlimits), and inherited by fork with the rest of memory.
 * Enforcing them on the guest's mmap and brk is mem.c's business:
 * mmap/mremap/brk (mem.c) check the guest's size against
 * sys_guest_rlimit(RLIMIT_AS) and RLIMIT_DATA (ENOMEM), as the kernel's
 * may_expand_vm() does. */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

#define RLIM_NLIMITS_KERNEL 16

/* The emulated limits, set up from the host's on first use (what the
 * process inherited) unless the exec'ing elfemu passed them on. */
static pthread_mutex_t emu_lock = PTHREAD_MUTEX_INITIALIZER;
static bool emu_ready;
static struct rlimit emu_as, emu_data;

static struct rlimit *emulated(int resource)
{
    if (resource != RLIMIT_AS && resource != RLIMIT_DATA)
        return NULL;
    if (!emu_ready) {
        getrlimit(RLIMIT_AS, &emu_as);
        getrlimit(RLIMIT_DATA, &emu_data);
        emu_ready = true;
    }
    return resource == RLIMIT_AS ? &emu_as : &emu_data;
}

int sys_set_exec_rlimits(const char *text)
{
    unsigned long long v[4];
    if (!text || sscanf(text, "%llu:%llu:%llu:%llu", &v[0], &v[1], &v[2], &v[3]) != 4)
        return -EINVAL;
    pthread_mutex_lock(&emu_lock);
    emu_as = (struct rlimit){ v[0], v[1] };
    emu_data = (struct rlimit){ v[2], v[3] };
    emu_ready = true;
    pthread_mutex_unlock(&emu_lock);
    return 0;
}

void sys_exec_rlimits(char *buf, size_t size)
{
    pthread_mutex_lock(&emu_lock);
    emulated(RLIMIT_AS);
    snprintf(buf, size, "%llu:%llu:%llu:%llu", (unsigned long long)emu_as.rlim_cur,
             (unsigned long long)emu_as.rlim_max, (unsigned long long)emu_data.rlim_cur,
             (unsigned long long)emu_data.rlim_max);
    pthread_mutex_unlock(&emu_lock);
}

static struct rlimit guest_rlimit(int resource)
{
    struct rlimit rl;
    pthread_mutex_lock(&emu_lock);
    struct rlimit *e = emulated(resource);
    if (e)
        rl = *e;
    pthread_mutex_unlock(&emu_lock);
    if (!e && getrlimit(resource, &rl) != 0)
        rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
    return rl;
}

uint64_t sys_guest_rlimit(int resource)
{
    return guest_rlimit(resource).rlim_cur;
}

uint64_t sys_guest_rlimit_max(int resource)
{
    return guest_rlimit(resource).rlim_max;
}

bool sys_capable(int cap)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
    if (syscall(SYS_capget, &h, d) != 0)
        return false;
    return d[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

/* do_prlimit() for this process: the old value into *old (if any), then
 * the new one (if any) applied; 0 or -errno. */
int rlimit_self(int resource, const struct rlimit *new, struct rlimit *old)
{
    if (resource < 0 || resource >= RLIM_NLIMITS_KERNEL)
        return -EINVAL;
    if (new && new->rlim_cur > new->rlim_max)
        return -EINVAL;
    pthread_mutex_lock(&emu_lock);
    struct rlimit *e = emulated(resource);
    if (!e) {
        pthread_mutex_unlock(&emu_lock);
        return (int)host_ret(syscall(SYS_prlimit64, 0, resource, new, old));
    }
    int r = 0;
    if (new && new->rlim_max > e->rlim_max && !sys_capable(CAP_SYS_RESOURCE))
        r = -EPERM;
    if (r == 0 && old)
        *old = *e;
    if (r == 0 && new)
        *e = *new;
    pthread_mutex_unlock(&emu_lock);
    return r;
}

int64_t sys_getrlimit(struct cpu *c, const uint64_t a[6])
{
    struct rlimit rl;
    int r = rlimit_self((int)a[0], NULL, &rl);
    if (r != 0)
        return r;
    return copy_to_guest(c, a[1], &rl, sizeof(rl));
}

/* ugetrlimit(resource, struct rlimit32 *) of i386 guests: a value above
 * 32 bits, RLIM_INFINITY included, reads as 0xffffffff. */
int64_t sys_ugetrlimit(struct cpu *c, const uint64_t a[6])
{
    struct rlimit rl;
    int r = rlimit_self((int)a[0], NULL, &rl);
    if (r != 0)
        return r;
    uint32_t out[2] = { rl.rlim_cur > 0xffffffffu ? 0xffffffffu : (uint32_t)rl.rlim_cur,
                        rl.rlim_max > 0xffffffffu ? 0xffffffffu : (uint32_t)rl.rlim_max };
    return copy_to_guest(c, a[1], out, sizeof(out));
}

int64_t sys_setrlimit(struct cpu *c, const uint64_t a[6])
{
    /* The kernel copies the limit in before it looks at the resource. */
    struct rlimit rl;
    if (copy_from_guest(c, &rl, a[1], sizeof(rl)) != 0)
        return -EFAULT;
    if ((uint32_t)a[0] >= RLIM_NLIMITS_KERNEL)
        return -EINVAL;
    return rlimit_self((int)a[0], &rl, NULL);
}

int64_t sys_prlimit64(struct cpu *c, const uint64_t a[6])
{
    pid_t pid = (pid_t)a[0];
    int resource = (int)a[1];
    struct rlimit nl, ol;
    if (a[2] && copy_from_guest(c, &nl, a[2], sizeof(nl)) != 0)
        return -EFAULT;
    int r;
    /* The caller's own process: pid 0, its pid or one of its thread ids.
     * The kernel finds the task (-ESRCH) before it checks the resource. */
    if (pid == 0 || pid == getpid() || (pid > 0 && syscall(SYS_tgkill, getpid(), pid, 0) == 0)) {
        if ((unsigned)resource >= RLIM_NLIMITS_KERNEL)
            return -EINVAL;
        if (a[2] && nl.rlim_cur > nl.rlim_max)
            return -EINVAL;
        r = rlimit_self(resource, a[2] ? &nl : NULL, a[3] ? &ol : NULL);
    } else {
        /* Another process: its host limits (an emulated RLIMIT_AS/DATA of
         * another elfemu process is out of reach from here). */
        r = (int)host_ret(syscall(SYS_prlimit64, pid, resource, a[2] ? &nl : NULL,
                                  a[3] ? &ol : NULL));
    }
    if (r == 0 && a[3] && copy_to_guest(c, a[3], &ol, sizeof(ol)) != 0)
        return -EFAULT;
    return r;
}

/* struct rusage and struct tms have the same layout for guest and host. */
int64_t sys_getrusage(struct cpu *c, const uint64_t a[6])
{
    struct rusage ru;
    if (syscall(SYS_getrusage, (int)a[0], &ru) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &ru, sizeof(ru));
}

int64_t sys_times(struct cpu *c, const uint64_t a[6])
{
    struct tms t;
    /* The result is a clock tick count, not an error, whatever its sign. */
    errno = 0;
    long r = syscall(SYS_times, &t);
    if (r == -1 && errno)
        return -errno;
    if (a[0] && copy_to_guest(c, a[0], &t, sizeof(t)) != 0)
        return -EFAULT;
    return r;
}
