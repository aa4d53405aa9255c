/* The i386 calls with 16-bit user and group ids (Linux's kernel/uid16.c):
 * getuid (24), setuid (23), chown (182), getgroups (80)...  glibc uses the
 * 32-bit calls (getuid32...), but old programs and syscall(SYS_getuid)
 * reach these.
 *
 * An id argument is 16 bits (the register's upper half is ignored) and
 * 0xffff means -1 ("leave unchanged"); an id returned that does not fit 16
 * bits becomes the overflow id (/proc/sys/kernel/overflowuid, 65534 by
 * default), as the kernel's high2lowuid() does. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

#define NGROUPS_MAX_KERNEL 65536

/* A 16-bit id argument as the 32-bit id the host calls take. */
static uint64_t low2high(uint64_t arg)
{
    uint16_t id = (uint16_t)arg;
    return id == 0xffff ? 0xffffffffull : id;
}

static uint16_t overflow_id(const char *which)
{
    char path[64], buf[16] = "";
    snprintf(path, sizeof(path), "/proc/sys/kernel/%s", which);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        buf[n > 0 ? n : 0] = 0;
        close(fd);
    }
    long v = buf[0] ? strtol(buf, NULL, 10) : 65534;
    return (uint16_t)v;
}

/* An id the host returned, as a 16-bit value. */
static uint16_t high2low(uint32_t id, bool group)
{
    static uint16_t over_uid, over_gid; /* 0 until read: 0 is never an overflow id */
    if (!(id & ~0xffffu))
        return (uint16_t)id;
    uint16_t *o = group ? &over_gid : &over_uid;
    uint16_t v = __atomic_load_n(o, __ATOMIC_RELAXED);
    if (!v) {
        v = overflow_id(group ? "overflowgid" : "overflowuid");
        __atomic_store_n(o, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* The calls of one shape are each one line below; each macro names the
 * handler it defines: sys_<call>16_ia32. */

/* getuid16, geteuid16, getgid16, getegid16: the host's id as 16 bits. */
#define GET_ID16(call, group)                                                              \
    int64_t sys_##call##16_ia32(struct cpu *c, const uint64_t a[6])                        \
    {                                                                                      \
        (void)c, (void)a;                                                                  \
        return high2low((uint32_t)call(), group);                                          \
    }
GET_ID16(getuid, false)
GET_ID16(geteuid, false)
GET_ID16(getgid, true)
GET_ID16(getegid, true)

/* The set calls: the host's, with the n ids widened. */
static int64_t set_ids(long nr, const uint64_t a[6], int n)
{
    uint64_t id[3] = { 0, 0, 0 };
    for (int i = 0; i < n; i++)
        id[i] = low2high(a[i]);
    return host_ret(syscall(nr, (uint32_t)id[0], (uint32_t)id[1], (uint32_t)id[2]));
}

#define SET_IDS16(call, n)                                                                 \
    int64_t sys_##call##16_ia32(struct cpu *c, const uint64_t a[6])                        \
    {                                                                                      \
        (void)c;                                                                           \
        return set_ids(SYS_##call, a, n);                                                  \
    }
SET_IDS16(setuid, 1)
SET_IDS16(setgid, 1)
SET_IDS16(setreuid, 2)
SET_IDS16(setregid, 2)
SET_IDS16(setresuid, 3)
SET_IDS16(setresgid, 3)

/* setfsuid16/setfsgid16 return the previous id unconverted, as the
 * kernel's 16-bit entries do. */
#define SET_FSID16(call)                                                                   \
    int64_t sys_##call##16_ia32(struct cpu *c, const uint64_t a[6])                        \
    {                                                                                      \
        (void)c;                                                                           \
        return syscall(SYS_##call, (uint32_t)low2high(a[0]));                              \
    }
SET_FSID16(setfsuid)
SET_FSID16(setfsgid)

/* getresuid16/getresgid16: three 16-bit stores, the first failing one
 * ends the call with EFAULT (the earlier ones are done). */
static int64_t get_three(struct cpu *c, const uint64_t a[6], long nr, bool group)
{
    uint32_t id[3];
    if (syscall(nr, &id[0], &id[1], &id[2]) != 0)
        return -errno;
    for (int i = 0; i < 3; i++) {
        uint16_t v = high2low(id[i], group);
        if (copy_to_guest(c, a[i], &v, sizeof(v)) != 0)
            return -EFAULT;
    }
    return 0;
}

int64_t sys_getresuid16_ia32(struct cpu *c, const uint64_t a[6])
{
    return get_three(c, a, SYS_getresuid, false);
}

int64_t sys_getresgid16_ia32(struct cpu *c, const uint64_t a[6])
{
    return get_three(c, a, SYS_getresgid, true);
}

/* getgroups16(size, list): the count with size 0; EINVAL when the list
 * does not fit; each group as 16 bits. */
int64_t sys_getgroups16_ia32(struct cpu *c, const uint64_t a[6])
{
    int size = (int)a[0];
    if (size < 0)
        return -EINVAL;
    int n = (int)syscall(SYS_getgroups, 0, NULL);
    if (n < 0)
        return -errno;
    if (size == 0)
        return n;
    if (size < n)
        return -EINVAL;
    uint32_t *g = malloc(((size_t)n + 1) * sizeof(*g));
    uint16_t *g16 = malloc(((size_t)n + 1) * sizeof(*g16));
    int64_t r = -ENOMEM;
    if (g && g16) {
        r = syscall(SYS_getgroups, n, g);
        if (r < 0)
            r = -errno;
        for (int64_t i = 0; i < r; i++)
            g16[i] = high2low(g[i], true);
        if (r > 0 && copy_to_guest(c, a[1], g16, (uint64_t)r * sizeof(*g16)) != 0)
            r = -EFAULT;
    }
    free(g);
    free(g16);
    return r;
}

/* setgroups16(size, list): the size is checked before the list is read. */
int64_t sys_setgroups16_ia32(struct cpu *c, const uint64_t a[6])
{
    uint64_t size = a[0] & 0xffffffffu;
    if (size > NGROUPS_MAX_KERNEL)
        return -EINVAL;
    const uint16_t *list = NULL;
    if (size && !(list = guest_buf(c, a[1], size * 2, PROT_READ)))
        return -EFAULT;
    uint32_t *g = malloc((size + 1) * sizeof(*g));
    if (!g)
        return -ENOMEM;
    for (uint64_t i = 0; i < size; i++)
        g[i] = (uint32_t)low2high(list[i]);
    int64_t r = host_ret(syscall(SYS_setgroups, (int)size, g));
    free(g);
    return r;
}

/* chown16, lchown16, fchown16: the 32-bit calls with the ids widened. */
#define CHOWN16(call)                                                                      \
    int64_t sys_##call##16_ia32(struct cpu *c, const uint64_t a[6])                        \
    {                                                                                      \
        const uint64_t b[6] = { a[0], low2high(a[1]), low2high(a[2]) };                    \
        return sys_##call(c, b);                                                           \
    }
CHOWN16(chown)
CHOWN16(lchown)
CHOWN16(fchown)
