/* Credentials: user and group ids, supplementary groups, capabilities.
 *
 * The guest's credentials ARE the host thread's: every call is the raw host
 * syscall on the calling thread, never the host libc wrapper, because the
 * kernel's credentials are per thread and glibc's setuid() family makes all
 * threads agree by signalling each of them (SIGSETXID).  The guest's own
 * libc does that for the guest's threads (each one a host thread), so a raw
 * call per guest call gives exactly the native behaviour.  Layouts of the
 * id types and of the capability structures are the same for guest and
 * host (32-bit ids, arrays of u32). */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

#define NGROUPS_MAX_KERNEL 65536 /* NGROUPS_MAX of the kernel */

int64_t sys_getuid(struct cpu *c, const uint64_t a[6]) { return syscall(SYS_getuid); }
int64_t sys_geteuid(struct cpu *c, const uint64_t a[6]) { return syscall(SYS_geteuid); }
int64_t sys_getgid(struct cpu *c, const uint64_t a[6]) { return syscall(SYS_getgid); }
int64_t sys_getegid(struct cpu *c, const uint64_t a[6]) { return syscall(SYS_getegid); }

/* The kernel takes ids as 32-bit values; (uid_t)-1 means "unchanged". */
int64_t sys_setuid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setuid, (uint32_t)a[0]));
}

int64_t sys_setgid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setgid, (uint32_t)a[0]));
}

int64_t sys_setreuid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setreuid, (uint32_t)a[0], (uint32_t)a[1]));
}

int64_t sys_setregid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setregid, (uint32_t)a[0], (uint32_t)a[1]));
}

int64_t sys_setresuid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setresuid, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2]));
}

int64_t sys_setresgid(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_setresgid, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2]));
}

/* getresuid/getresgid: the kernel stores the three ids one by one and
 * fails with EFAULT at the first it cannot store. */
static int64_t put_three(struct cpu *c, const uint64_t a[6], const uint32_t id[3])
{
    for (int i = 0; i < 3; i++)
        if (copy_to_guest(c, a[i], &id[i], sizeof(id[i])) != 0)
            return -EFAULT;
    return 0;
}

int64_t sys_getresuid(struct cpu *c, const uint64_t a[6])
{
    uint32_t id[3];
    if (syscall(SYS_getresuid, &id[0], &id[1], &id[2]) != 0)
        return -errno;
    return put_three(c, a, id);
}

int64_t sys_getresgid(struct cpu *c, const uint64_t a[6])
{
    uint32_t id[3];
    if (syscall(SYS_getresgid, &id[0], &id[1], &id[2]) != 0)
        return -errno;
    return put_three(c, a, id);
}

/* setfsuid/setfsgid never fail: they return the previous value. */
int64_t sys_setfsuid(struct cpu *c, const uint64_t a[6])
{
    return syscall(SYS_setfsuid, (uint32_t)a[0]);
}

int64_t sys_setfsgid(struct cpu *c, const uint64_t a[6])
{
    return syscall(SYS_setfsgid, (uint32_t)a[0]);
}

int64_t sys_getgroups(struct cpu *c, const uint64_t a[6])
{
    int size = (int)a[0];
    if (size < 0)
        return -EINVAL;
    /* size 0 asks for the count only; otherwise the kernel fails with
     * EINVAL when the list does not fit, and writes only count entries. */
    int n = (int)syscall(SYS_getgroups, 0, NULL);
    if (n < 0)
        return -errno;
    if (size == 0)
        return n;
    if (size < n)
        return -EINVAL;
    uint32_t *g = malloc(((size_t)n + 1) * sizeof(*g));
    if (!g)
        return -ENOMEM;
    int64_t r = syscall(SYS_getgroups, n, g);
    if (r < 0)
        r = -errno;
    else if (copy_to_guest(c, a[1], g, (uint64_t)r * sizeof(*g)) != 0)
        r = -EFAULT;
    free(g);
    return r;
}

int64_t sys_setgroups(struct cpu *c, const uint64_t a[6])
{
    uint64_t size = a[0] & 0xffffffffu; /* the kernel's int gidsetsize */
    if (size > NGROUPS_MAX_KERNEL)
        return -EINVAL;
    const void *list = NULL;
    if (size && !(list = guest_buf(c, a[1], size * 4, PROT_READ)))
        return -EFAULT;
    return host_ret(syscall(SYS_setgroups, (int)size, list));
}

/* capget/capset: the header's version says how many data structures
 * follow (one for version 1, two for versions 2 and 3).  For an unknown
 * version the kernel writes its own version into the header and fails with
 * EINVAL, without touching the data. */
static uint64_t cap_data_count(uint32_t version)
{
    switch (version) {
    case _LINUX_CAPABILITY_VERSION_1:
        return _LINUX_CAPABILITY_U32S_1;
    case _LINUX_CAPABILITY_VERSION_2:
    case _LINUX_CAPABILITY_VERSION_3:
        return _LINUX_CAPABILITY_U32S_3;
    default:
        return 0;
    }
}

static int64_t cap_call(struct cpu *c, const uint64_t a[6], long nr, int data_prot)
{
    uint32_t version;
    if (copy_from_guest(c, &version, a[0], sizeof(version)) != 0)
        return -EFAULT;
    uint64_t n = cap_data_count(version);
    void *hdr = guest_buf(c, a[0], sizeof(struct __user_cap_header_struct),
                          n ? PROT_READ : PROT_WRITE);
    if (!hdr)
        return -EFAULT;
    /* For an unknown version the data is not touched, but whether its
     * pointer is NULL still decides capget's result (0 or EINVAL). */
    struct __user_cap_data_struct unused[_LINUX_CAPABILITY_U32S_3];
    void *data = a[1] ? unused : NULL;
    if (n && a[1] &&
        !(data = guest_buf(c, a[1], n * sizeof(struct __user_cap_data_struct), data_prot)))
        return -EFAULT;
    return host_ret(syscall(nr, hdr, data));
}

int64_t sys_capget(struct cpu *c, const uint64_t a[6])
{
    return cap_call(c, a, SYS_capget, PROT_WRITE);
}

int64_t sys_capset(struct cpu *c, const uint64_t a[6])
{
    return cap_call(c, a, SYS_capset, PROT_READ);
}
